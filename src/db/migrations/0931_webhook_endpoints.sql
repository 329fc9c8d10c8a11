-- Webhook endpoints (docs/webhooks.md): where an organization wants its events delivered. The signing secret
-- is kept encrypted with the key ring (never hashed: Cadre signs with it); after a rotation the previous one
-- keeps signing alongside the new one until previous_secret_expires_at.
CREATE TABLE webhook_endpoints (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id),
  url text NOT NULL,
  description text NOT NULL DEFAULT '',
  event_types text[] NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  disabled_reason text,
  secret_ciphertext text NOT NULL,
  previous_secret_ciphertext text,
  previous_secret_expires_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
--> statement-breakpoint
CREATE INDEX webhook_endpoints_org ON webhook_endpoints (organization_id, created_at, id);
