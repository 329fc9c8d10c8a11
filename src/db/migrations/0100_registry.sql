-- One row per Expert name, never deleted: it records which organization owns the name (the first to
-- publish it wins through the primary key) and is the row every write to the name locks FOR UPDATE, so
-- publishes, updates and deletes of one name are serialized by the database.
CREATE TABLE registry_names (
  name text COLLATE "C" PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id),
  created_at timestamptz NOT NULL DEFAULT now()
);
--> statement-breakpoint
-- Every name@version ever published, never deleted: version numbers are not reusable.
CREATE TABLE registry_versions (
  name text COLLATE "C" NOT NULL REFERENCES registry_names(name),
  version text COLLATE "C" NOT NULL,
  expert_id text NOT NULL,
  published_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (name, version)
);
--> statement-breakpoint
CREATE TABLE registry_experts (
  id text PRIMARY KEY,
  -- Publish order: "most recently published" for latest, independent of clock resolution.
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  name text COLLATE "C" NOT NULL REFERENCES registry_names(name),
  version text COLLATE "C" NOT NULL,
  -- SemVer precedence as a byte-comparable string (see version-order.ts).
  version_order text COLLATE "C" NOT NULL,
  organization_id text NOT NULL REFERENCES organizations(id),
  min_runtime_version text NOT NULL,
  description text NOT NULL,
  instruction text NOT NULL,
  -- json, not jsonb: the skills map keeps the key order it was published with.
  skills json NOT NULL,
  delegates text[] NOT NULL DEFAULT '{}',
  -- Custom tags held by this version (registry_tags is the authority; kept in step in the same transaction).
  tags text[] NOT NULL DEFAULT '{}',
  is_latest boolean NOT NULL DEFAULT false,
  status text NOT NULL DEFAULT 'available' CHECK (status IN ('available', 'deprecated', 'disabled')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (name, version),
  FOREIGN KEY (name, version) REFERENCES registry_versions(name, version)
);
--> statement-breakpoint
-- At most one holder of latest per name, enforced by the database.
CREATE UNIQUE INDEX registry_experts_one_latest ON registry_experts (name) WHERE is_latest;
--> statement-breakpoint
-- List Experts reads only latest holders: one partial index per sort order (name also serves the filter prefix).
CREATE INDEX registry_latest_created ON registry_experts (created_at, id) WHERE is_latest;
--> statement-breakpoint
CREATE INDEX registry_latest_updated ON registry_experts (updated_at, id) WHERE is_latest;
--> statement-breakpoint
CREATE INDEX registry_latest_version ON registry_experts (version_order, id) WHERE is_latest;
--> statement-breakpoint
CREATE INDEX registry_latest_org_created ON registry_experts (organization_id, created_at, id) WHERE is_latest;
--> statement-breakpoint
-- Delete asks "does any Expert delegate to this key?".
CREATE INDEX registry_experts_delegates ON registry_experts USING gin (delegates);
--> statement-breakpoint
-- A custom tag names exactly one version per name: the primary key is the invariant.
CREATE TABLE registry_tags (
  name text COLLATE "C" NOT NULL REFERENCES registry_names(name),
  tag text COLLATE "C" NOT NULL,
  expert_id text NOT NULL REFERENCES registry_experts(id) ON DELETE CASCADE,
  PRIMARY KEY (name, tag)
);
--> statement-breakpoint
CREATE INDEX registry_tags_expert ON registry_tags (expert_id);
--> statement-breakpoint
-- How many names each organization has with a latest version: List Experts' meta.total without counting
-- the (wide, often not all-visible) experts table on every request. Kept in step in the write transaction
-- when a name gains its first version or loses its last.
CREATE TABLE registry_counts (
  organization_id text PRIMARY KEY REFERENCES organizations(id),
  latest integer NOT NULL CHECK (latest >= 0)
);
