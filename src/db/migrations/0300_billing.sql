-- Console sessions: only a SHA-256 digest of the session token is stored; revoking sets revoked_at.
CREATE TABLE console_sessions (
  id text PRIMARY KEY,
  token_digest text NOT NULL UNIQUE,
  user_id text NOT NULL REFERENCES users(id),
  organization_id text NOT NULL REFERENCES organizations(id),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
--> statement-breakpoint
CREATE INDEX console_sessions_user ON console_sessions (user_id);
--> statement-breakpoint
-- Idempotency keys: the primary key makes the first insert win, so concurrent retries never both run.
CREATE TABLE idempotency_keys (
  organization_id text NOT NULL REFERENCES organizations(id),
  user_id text NOT NULL REFERENCES users(id),
  endpoint text NOT NULL,
  key text NOT NULL,
  request_hash text NOT NULL,
  state text NOT NULL CHECK (state IN ('running', 'done')),
  response_status integer,
  response_body jsonb,
  locked_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (organization_id, user_id, endpoint, key)
);
--> statement-breakpoint
CREATE INDEX idempotency_keys_expires ON idempotency_keys (expires_at);
--> statement-breakpoint
-- The provider-neutral subscription projection, one row per organization that ever subscribed.
CREATE TABLE billing_subscriptions (
  organization_id text PRIMARY KEY REFERENCES organizations(id),
  provider text NOT NULL CHECK (provider IN ('local', 'stripe')),
  plan_key text NOT NULL,
  status text NOT NULL CHECK (status IN ('none', 'trialing', 'active', 'past_due', 'canceled', 'incomplete')),
  current_period_start timestamptz,
  current_period_end timestamptz,
  cancel_at_period_end boolean NOT NULL DEFAULT false,
  provider_customer_id text,
  provider_subscription_id text,
  -- When the provider produced the state stored here: older events are ignored (out-of-order delivery).
  provider_state_at timestamptz,
  updated_at timestamptz NOT NULL
);
--> statement-breakpoint
CREATE INDEX billing_subscriptions_customer ON billing_subscriptions (provider, provider_customer_id);
--> statement-breakpoint
-- Checkout and portal sessions of the built-in local provider (pages served by Cadre).
CREATE TABLE billing_local_sessions (
  id text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('checkout', 'portal')),
  organization_id text NOT NULL REFERENCES organizations(id),
  user_id text NOT NULL REFERENCES users(id),
  provider_idempotency_key text NOT NULL UNIQUE,
  plan_key text,
  success_url text,
  cancel_url text,
  return_url text,
  status text NOT NULL CHECK (status IN ('open', 'completed')),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  completed_at timestamptz
);
--> statement-breakpoint
-- Provider webhook events already applied: a duplicate delivery changes nothing.
CREATE TABLE billing_webhook_events (
  provider text NOT NULL,
  event_id text NOT NULL,
  type text NOT NULL,
  received_at timestamptz NOT NULL,
  PRIMARY KEY (provider, event_id)
);
--> statement-breakpoint
-- Authenticated management requests, counted in memory and added here in batches, per organization and hour.
CREATE TABLE usage_api_requests (
  organization_id text NOT NULL REFERENCES organizations(id),
  hour timestamptz NOT NULL,
  count bigint NOT NULL,
  PRIMARY KEY (organization_id, hour)
);
