CREATE TABLE organizations (
  id text PRIMARY KEY,
  slug text NOT NULL UNIQUE,
  name text NOT NULL,
  account_type text NOT NULL CHECK (account_type IN ('personal', 'personalPlus', 'team')),
  created_at timestamptz NOT NULL DEFAULT now()
);
--> statement-breakpoint
CREATE TABLE users (
  id text PRIMARY KEY,
  email text NOT NULL UNIQUE,
  name text,
  password_hash text,
  created_at timestamptz NOT NULL DEFAULT now()
);
--> statement-breakpoint
CREATE TABLE memberships (
  organization_id text NOT NULL REFERENCES organizations(id),
  user_id text NOT NULL REFERENCES users(id),
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, user_id)
);
--> statement-breakpoint
-- Exactly one owner per organization.
CREATE UNIQUE INDEX memberships_one_owner ON memberships (organization_id) WHERE role = 'owner';
--> statement-breakpoint
CREATE INDEX memberships_user ON memberships (user_id);
--> statement-breakpoint
CREATE TABLE projects (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id),
  slug text NOT NULL,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, slug)
);
--> statement-breakpoint
CREATE TABLE environments (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id),
  project_id text NOT NULL REFERENCES projects(id),
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, name)
);
--> statement-breakpoint
CREATE TABLE agents (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id),
  project_id text NOT NULL REFERENCES projects(id),
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, name)
);
--> statement-breakpoint
CREATE TABLE api_keys (
  id text PRIMARY KEY,
  -- Monotonic insertion order: the keyset for pagination (a key created later never lands behind a cursor).
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id text NOT NULL REFERENCES organizations(id),
  user_id text NOT NULL REFERENCES users(id),
  name text,
  start text NOT NULL,
  digest text NOT NULL UNIQUE,
  grants jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  last_used_at timestamptz,
  revoked_at timestamptz
);
--> statement-breakpoint
CREATE INDEX api_keys_org_seq ON api_keys (organization_id, seq DESC);
--> statement-breakpoint
CREATE INDEX api_keys_user_seq ON api_keys (organization_id, user_id, seq DESC);
--> statement-breakpoint
CREATE TABLE audit_events (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id),
  action text NOT NULL,
  actor_kind text NOT NULL CHECK (actor_kind IN ('apiKey', 'session', 'admin')),
  actor_user_id text,
  actor_api_key_id text,
  actor_session_id text,
  target_type text NOT NULL,
  target_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
--> statement-breakpoint
CREATE INDEX audit_events_org_created ON audit_events (organization_id, created_at DESC, id DESC);
