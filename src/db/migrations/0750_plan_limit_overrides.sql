-- Per-organization limits set by an operator, overriding the plan's (docs/billing.md, "Plan limits").
CREATE TABLE organization_limit_overrides (
  organization_id text NOT NULL REFERENCES organizations (id),
  counter text NOT NULL CHECK (counter IN ('apiRequests', 'expertVersions', 'apiKeys', 'connections')),
  value integer NOT NULL CHECK (value >= 0),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, counter)
);
