-- Audit events for the organization's own trail (docs/organization-api.md, "Audit events"): details of a
-- change as JSON, a keyset for cursor pages, and a `system` actor for changes Cadre applies on a payment
-- provider's word (webhooks, the local provider's pages).
ALTER TABLE audit_events ADD COLUMN metadata jsonb;
--> statement-breakpoint
-- The keyset of cursor pages: existing events are numbered in the order they happened, new ones by identity.
ALTER TABLE audit_events ADD COLUMN seq bigint;
--> statement-breakpoint
UPDATE audit_events SET seq = numbered.n
FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM audit_events) AS numbered
WHERE audit_events.id = numbered.id;
--> statement-breakpoint
ALTER TABLE audit_events ALTER COLUMN seq SET NOT NULL;
--> statement-breakpoint
ALTER TABLE audit_events ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY;
--> statement-breakpoint
SELECT setval(pg_get_serial_sequence('audit_events', 'seq'), (SELECT coalesce(max(seq), 0) + 1 FROM audit_events), false);
--> statement-breakpoint
ALTER TABLE audit_events ADD CONSTRAINT audit_events_seq_unique UNIQUE (seq);
--> statement-breakpoint
ALTER TABLE audit_events DROP CONSTRAINT audit_events_actor_kind_check;
--> statement-breakpoint
ALTER TABLE audit_events ADD CONSTRAINT audit_events_actor_kind_check
  CHECK (actor_kind IN ('apiKey', 'session', 'admin', 'system'));
--> statement-breakpoint
-- Newest first, and filtered by action or by actor (a user or an API key).
CREATE INDEX audit_events_org_seq ON audit_events (organization_id, seq DESC);
--> statement-breakpoint
CREATE INDEX audit_events_org_action_seq ON audit_events (organization_id, action, seq DESC);
--> statement-breakpoint
CREATE INDEX audit_events_org_actor_user_seq ON audit_events (organization_id, actor_user_id, seq DESC);
--> statement-breakpoint
CREATE INDEX audit_events_org_actor_key_seq ON audit_events (organization_id, actor_api_key_id, seq DESC);
