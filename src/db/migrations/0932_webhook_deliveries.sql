-- Webhook deliveries (docs/webhooks.md): a transactional outbox. One row per (event, endpoint), inserted in
-- the event's own transaction, so a committed event always has its deliveries and a rolled-back one none.
-- Workers on every instance claim due rows with FOR UPDATE SKIP LOCKED and a lease (claimed_until): a
-- claim whose instance died comes back once its lease has passed. `id` is the `webhook-id` header: the
-- same on every retry and resend of that event to that endpoint.
CREATE TABLE webhook_deliveries (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id text NOT NULL REFERENCES organizations(id),
  endpoint_id text NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  event_id text NOT NULL REFERENCES events(id),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  -- Attempts since the delivery was queued or last resent: the retry schedule's position.
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  claimed_until timestamptz,
  claim_token text,
  created_at timestamptz NOT NULL,
  completed_at timestamptz,
  UNIQUE (event_id, endpoint_id)
);
--> statement-breakpoint
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
--> statement-breakpoint
CREATE INDEX webhook_deliveries_endpoint_seq ON webhook_deliveries (endpoint_id, seq);
--> statement-breakpoint
-- Each attempt, for the delivery log: when, the status or the error, how long, a capped excerpt of the answer.
CREATE TABLE webhook_delivery_attempts (
  id text PRIMARY KEY,
  delivery_id text NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  attempted_at timestamptz NOT NULL,
  status_code integer,
  error text,
  latency_ms integer NOT NULL,
  response_excerpt text
);
--> statement-breakpoint
CREATE INDEX webhook_delivery_attempts_delivery ON webhook_delivery_attempts (delivery_id, attempted_at);
--> statement-breakpoint
-- Since when every attempt to the endpoint has failed (null while its last attempt succeeded): three days of
-- it disables the endpoint.
ALTER TABLE webhook_endpoints ADD COLUMN failing_since timestamptz;
