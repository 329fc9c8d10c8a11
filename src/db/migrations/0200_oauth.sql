-- OAuth (issue 6): integrations (an organization's client credentials for a preset) with immutable versions,
-- consumed OAuth states (single use), and Connections (encrypted tokens per project environment and preset).
CREATE TABLE integrations (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id),
  preset_key text NOT NULL,
  current_version_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, preset_key)
);
--> statement-breakpoint
CREATE TABLE integration_versions (
  id text PRIMARY KEY,
  integration_id text NOT NULL REFERENCES integrations(id),
  organization_id text NOT NULL REFERENCES organizations(id),
  preset_key text NOT NULL,
  number integer NOT NULL,
  client_id text NOT NULL,
  -- AES-256-GCM under the key ring; associated data binds it to this version's id.
  client_secret_ciphertext text NOT NULL,
  scopes jsonb NOT NULL,
  -- Provider endpoints resolved when the version was created (preset defaults, overrides or discovery).
  provider jsonb NOT NULL,
  verified boolean NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (integration_id, number)
);
--> statement-breakpoint
ALTER TABLE integrations ADD CONSTRAINT integrations_current_version_fk
  FOREIGN KEY (current_version_id) REFERENCES integration_versions(id);
--> statement-breakpoint
CREATE TABLE oauth_states (
  -- SHA-256 of the state value: the raw state never rests in the database.
  state_hash text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id),
  consumed_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
--> statement-breakpoint
CREATE INDEX oauth_states_expires ON oauth_states (expires_at);
--> statement-breakpoint
CREATE TABLE connections (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id),
  project_id text NOT NULL REFERENCES projects(id),
  environment_id text NOT NULL REFERENCES environments(id),
  preset_key text NOT NULL,
  integration_version_id text NOT NULL REFERENCES integration_versions(id),
  account_id text NOT NULL,
  account_label text,
  scopes jsonb NOT NULL,
  status text NOT NULL CHECK (status IN ('active', 'needs_reauth')),
  token_type text NOT NULL,
  access_token_ciphertext text NOT NULL,
  refresh_token_ciphertext text,
  expires_at timestamptz,
  last_error text,
  refresh_failures integer NOT NULL DEFAULT 0,
  next_refresh_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (environment_id, preset_key)
);
--> statement-breakpoint
CREATE INDEX connections_project ON connections (project_id);
