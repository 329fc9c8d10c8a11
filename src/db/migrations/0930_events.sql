-- Events (docs/webhooks.md): each change worth telling the systems around Cadre about, written in the same
-- transaction as the change. `seq` orders them (the cursor); `dedupe_key` makes an event emitted by a sweep
-- (a key about to expire, a plan limit reached) exist once however many instances run the sweep.
CREATE TABLE events (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id text NOT NULL REFERENCES organizations(id),
  type text NOT NULL,
  actor_kind text NOT NULL CHECK (actor_kind IN ('apiKey', 'session', 'admin', 'system')),
  actor_user_id text,
  actor_api_key_id text,
  resource_type text NOT NULL,
  resource_id text NOT NULL,
  payload jsonb NOT NULL,
  dedupe_key text UNIQUE,
  created_at timestamptz NOT NULL
);
--> statement-breakpoint
CREATE INDEX events_org_seq ON events (organization_id, seq);
--> statement-breakpoint
CREATE INDEX events_org_type_seq ON events (organization_id, type, seq);
