-- `cadre login` requests waiting for approval in the console (src/modules/cli-logins/). The CLI makes the key's
-- secret itself and sends only its digest: on approval the digest becomes an API key; no secret is stored.
CREATE TABLE cli_logins (
  id text PRIMARY KEY,
  device_code_digest text NOT NULL UNIQUE,
  user_code text NOT NULL UNIQUE,
  name text NOT NULL,
  key_start text NOT NULL,
  key_digest text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  api_key_id text REFERENCES api_keys(id),
  organization_id text REFERENCES organizations(id),
  denied_at timestamptz
);
