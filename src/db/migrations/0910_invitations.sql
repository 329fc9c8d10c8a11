-- Invitations to join an organization (docs/organization-api.md, "Members and invitations"): a capability
-- link sent to an email with a role, kept only as the SHA-256 of its token, single-use, expiring, revocable.
CREATE TABLE invitations (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id),
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('admin', 'member')),
  token_digest text NOT NULL UNIQUE,
  invited_by_user_id text REFERENCES users(id),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  accepted_by_user_id text REFERENCES users(id),
  revoked_at timestamptz
);
--> statement-breakpoint
-- The pending list of an organization, oldest first, and "is this email already invited".
CREATE INDEX invitations_org_created ON invitations (organization_id, created_at, id);
--> statement-breakpoint
CREATE INDEX invitations_org_email ON invitations (organization_id, email);
