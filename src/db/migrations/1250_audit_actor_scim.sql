-- Changes made by an organization's SCIM provisioning are recorded as SCIM's (actor kind `scim`), not as Cadre's
-- own `system` (docs/organization-api.md, "Audit events"; docs/webhooks.md).
ALTER TABLE audit_events DROP CONSTRAINT audit_events_actor_kind_check;
--> statement-breakpoint
ALTER TABLE audit_events ADD CONSTRAINT audit_events_actor_kind_check
  CHECK (actor_kind IN ('apiKey', 'session', 'admin', 'system', 'scim'));
--> statement-breakpoint
ALTER TABLE events DROP CONSTRAINT events_actor_kind_check;
--> statement-breakpoint
ALTER TABLE events ADD CONSTRAINT events_actor_kind_check
  CHECK (actor_kind IN ('apiKey', 'session', 'admin', 'system', 'scim'));
