-- An organization's OpenID Connect provider for single sign-on (docs/sso.md). One row per organization.
-- `client_secret_ciphertext` is the client secret under the key ring (CADRE_ENCRYPTION_KEYS), bound to the
-- organization: write-only through the API. `tested_at`: the last successful test sign-in of this issuer and
-- client; enforcement can be turned on only after one, and changing the issuer or client clears both.
-- `break_glass_user_ids`: the owners who keep a password while enforcement is on.
CREATE TABLE sso_providers (
  organization_id text PRIMARY KEY REFERENCES organizations(id),
  issuer text NOT NULL,
  client_id text NOT NULL,
  client_secret_ciphertext text NOT NULL,
  groups_claim text NOT NULL,
  session_max_age_seconds integer NOT NULL CHECK (session_max_age_seconds > 0),
  tested_at timestamptz,
  enforced boolean NOT NULL DEFAULT false,
  break_glass_user_ids text[] NOT NULL DEFAULT '{}',
  updated_at timestamptz NOT NULL,
  updated_by_user_id text
);
--> statement-breakpoint
-- A sign-in on its way through the provider, from its start to its callback: found by the digest of its
-- `state` and deleted when the callback takes it (a replayed `state` finds nothing), bound to the browser
-- that started it by the digest of a cookie, and useless after `expires_at`. `purpose` `test`: an owner's
-- test sign-in, which signs nobody in.
CREATE TABLE sso_sign_ins (
  state_digest text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id),
  purpose text NOT NULL CHECK (purpose IN ('sign_in', 'test')),
  browser_digest text NOT NULL,
  code_verifier text NOT NULL,
  nonce text NOT NULL,
  return_to text NOT NULL,
  started_by_user_id text,
  expires_at timestamptz NOT NULL
);
--> statement-breakpoint
CREATE INDEX sso_sign_ins_expiry ON sso_sign_ins (expires_at);
