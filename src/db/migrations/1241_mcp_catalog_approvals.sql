-- The catalog's approval gate (docs/mcp-registry.md "Approval of versions that widen access"): under the
-- organization's approvalRequiredForWidening, a version that adds a package, a remote host or a secret
-- variable waits for a second owner or admin. Until approved it is on no list and no read of the v0.1 API,
-- never `latest`, and no skill may run it. NULL: the version never waited.
ALTER TABLE mcp_server_versions
  ADD COLUMN approval text CHECK (approval IN ('pending', 'approved', 'rejected')),
  ADD COLUMN approval_reasons jsonb,
  ADD COLUMN approval_previous_version text,
  ADD COLUMN approval_decided_by_user_id text,
  ADD COLUMN approval_decided_at timestamptz;
--> statement-breakpoint
CREATE INDEX mcp_server_versions_waiting ON mcp_server_versions (organization_id, published_at)
  WHERE approval = 'pending';
