-- SCIM 2.0 provisioning (docs/scim.md). One bearer token per organization, kept as its SHA-256 only.
CREATE TABLE scim_tokens (
  organization_id text PRIMARY KEY REFERENCES organizations(id),
  token_digest text NOT NULL UNIQUE,
  token_start text NOT NULL,
  created_by_user_id text REFERENCES users(id),
  created_at timestamptz NOT NULL
);
--> statement-breakpoint
-- A provisioned person: the SCIM resource, linked to the Cadre account it made or adopted. `active` false:
-- deprovisioned (the membership is gone; the resource stays until the provider deletes it).
CREATE TABLE scim_users (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id),
  user_id text NOT NULL REFERENCES users(id),
  user_name text NOT NULL,
  -- The account's email when it was provisioned (an account's email is shared by its organizations).
  email text NOT NULL,
  external_id text,
  display_name text,
  given_name text,
  family_name text,
  active boolean NOT NULL,
  version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (organization_id, user_id)
);
--> statement-breakpoint
-- userName is unique per organization, case-insensitively (RFC 7643: caseExact false).
CREATE UNIQUE INDEX scim_users_user_name ON scim_users (organization_id, lower(user_name));
--> statement-breakpoint
CREATE TABLE scim_groups (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id),
  display_name text NOT NULL,
  external_id text,
  version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (organization_id, display_name)
);
--> statement-breakpoint
CREATE TABLE scim_group_members (
  group_id text NOT NULL REFERENCES scim_groups(id) ON DELETE CASCADE,
  scim_user_id text NOT NULL REFERENCES scim_users(id) ON DELETE CASCADE,
  PRIMARY KEY (group_id, scim_user_id)
);
