-- An idempotent replay answers the first answer's bytes (docs/billing.md, "Idempotency"): the answer is kept as
-- the JSON text that was written, not as jsonb (which reorders an object's members by their names' length).
ALTER TABLE idempotency_keys ADD COLUMN response_text text;
--> statement-breakpoint
UPDATE idempotency_keys SET response_text = response_body::text WHERE response_body IS NOT NULL;
--> statement-breakpoint
ALTER TABLE idempotency_keys DROP COLUMN response_body;
