-- Each organization's MCP catalog, served in the MCP Registry's v0.1 API (docs/mcp-registry.md).
-- One row per organization that set its read access; an organization without a row has a private catalog
-- read with a Bearer key (`key`). `link_secret_hash` is the SHA-256 of the catalog link's secret (`link`
-- access), never the secret itself; rotating it replaces the hash.
CREATE TABLE mcp_catalogs (
  organization_id text PRIMARY KEY REFERENCES organizations(id),
  access text NOT NULL CHECK (access IN ('public', 'key', 'link')),
  link_secret_hash text UNIQUE,
  updated_at timestamptz NOT NULL,
  updated_by_user_id text
);
--> statement-breakpoint
-- One row per published server version; `server` is the server.json as published (immutable), the rest is
-- the registry's own data: status (a deleted version is a status, so mirrors syncing with updated_since see
-- it go), whether it is the server's latest (by semver), and when it was published and last changed.
CREATE TABLE mcp_server_versions (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id),
  name text COLLATE "C" NOT NULL,
  version text COLLATE "C" NOT NULL,
  server jsonb NOT NULL,
  status text NOT NULL CHECK (status IN ('active', 'deprecated', 'deleted')),
  status_message text,
  status_changed_at timestamptz NOT NULL,
  is_latest boolean NOT NULL,
  published_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  published_by_user_id text NOT NULL,
  UNIQUE (organization_id, name, version)
);
--> statement-breakpoint
-- The IDE's list (version=latest) pages by name over the latest versions only: a partial index holds just
-- those, in the order the cursor walks.
CREATE UNIQUE INDEX mcp_server_versions_latest ON mcp_server_versions (organization_id, name) WHERE is_latest;
--> statement-breakpoint
-- Mirrors syncing incrementally (updated_since) read by change time.
CREATE INDEX mcp_server_versions_updated ON mcp_server_versions (organization_id, updated_at);
