-- The rules an owner writes to turn an identity provider's groups (the ID token's groups claim, SCIM Groups)
-- into roles (docs/sso.md, "Role mapping"). One row per organization that wrote rules; without a row every
-- person signing in through the provider gets `member`. `rules` is the ordered list of { group, role };
-- roles are `admin` or `member` (ownership is never given or taken by the provider).
CREATE TABLE sso_role_mappings (
  organization_id text PRIMARY KEY REFERENCES organizations(id),
  default_role text NOT NULL CHECK (default_role IN ('admin', 'member')),
  rules jsonb NOT NULL,
  updated_at timestamptz NOT NULL,
  updated_by_user_id text
);
