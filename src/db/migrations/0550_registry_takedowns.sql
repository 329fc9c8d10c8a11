-- Versions an operator took down (docs/registry.md "Takedowns"): the row leaves registry_experts (so no read,
-- list, tag or latest can reach it, as after a delete) and its reason stays here, so reading the exact version
-- answers 410 with the reason. The version number stays reserved in registry_versions.
CREATE TABLE registry_takedowns (
  name text COLLATE "C" NOT NULL,
  version text COLLATE "C" NOT NULL,
  expert_id text NOT NULL,
  organization_id text NOT NULL REFERENCES organizations(id),
  reason text NOT NULL,
  taken_down_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (name, version),
  FOREIGN KEY (name, version) REFERENCES registry_versions(name, version)
);
--> statement-breakpoint
-- Delegates of this Expert that name a taken-down version exactly, with the reason: [{ "key", "reason" }]
-- (NULL when none). Written by the takedown, in the same transaction, on every Expert delegating to it.
ALTER TABLE registry_experts ADD COLUMN unavailable_delegates jsonb;
