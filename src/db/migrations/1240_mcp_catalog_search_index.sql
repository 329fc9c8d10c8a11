-- The catalog's search (`search`, docs/mcp-registry.md) matches a substring of the server name in any case
-- (`name ILIKE '%text%'`). No B-tree answers a substring, so without this a search that matches few names
-- read every latest version of the organization in name order until the page filled. A trigram index
-- (pg_trgm, shipped with PostgreSQL's contrib and with PGlite) answers ILIKE '%text%' for any text of three
-- characters or more, so a search reads only the rows that can match.
-- fastupdate off: without it new names wait in the index's pending list until a vacuum, and the planner,
-- costing that list, keeps scanning (PGlite runs no autovacuum). The catalog is written rarely, read often.
-- pg_trgm is a trusted extension (PostgreSQL 13+): the database's owner may create it without superuser.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE INDEX mcp_server_versions_name_trgm ON mcp_server_versions USING gin (name gin_trgm_ops)
  WITH (fastupdate = off);
