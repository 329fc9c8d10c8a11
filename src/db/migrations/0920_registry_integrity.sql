-- Each version's integrity digest (src/modules/registry/integrity.ts, docs/registry.md "Integrity"): the
-- sha256 of the RFC 8785 canonical JSON of its run-relevant fields. Canonicalization cannot be done in SQL
-- (PostgreSQL's jsonb orders keys by length, not as RFC 8785 does), so existing rows start empty and are
-- filled by backfillIntegrity at start-up, before the service listens; a publish always writes it.
ALTER TABLE registry_experts ADD COLUMN integrity text;
