-- Publish policies and approvals (docs/registry.md "Publish policies"). An organization without a policy row
-- has the open policy (every rule off: what it had before policies); a new organization gets a row from the
-- operator's default (CADRE_PUBLISH_POLICY_DEFAULT) when one is set. NULL lists mean "any".
CREATE TABLE registry_publish_policies (
  organization_id text PRIMARY KEY REFERENCES organizations(id),
  allowed_commands text[],
  require_pinned_versions boolean NOT NULL DEFAULT false,
  allowed_sse_hosts text[],
  approval_required_for_widening boolean NOT NULL DEFAULT false,
  updated_at timestamptz NOT NULL,
  updated_by_user_id text
);
--> statement-breakpoint
-- A version that widened access over `latest` while the policy asked for approval: published, but not
-- `latest` until a second owner or admin approves. One row per such version; it goes with the version
-- (deleted or taken down). `reasons` are the diff's widening reasons against `previous_version`.
CREATE TABLE registry_approvals (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id),
  expert_id text NOT NULL UNIQUE REFERENCES registry_experts(id) ON DELETE CASCADE,
  name text COLLATE "C" NOT NULL,
  version text COLLATE "C" NOT NULL,
  previous_version text COLLATE "C",
  reasons jsonb NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
  requested_by_user_id text NOT NULL,
  decided_by_user_id text,
  decided_at timestamptz,
  created_at timestamptz NOT NULL
);
--> statement-breakpoint
CREATE INDEX registry_approvals_org_status ON registry_approvals (organization_id, status, created_at, id);
