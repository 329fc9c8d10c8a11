-- Whether a version runs on runtime v1.0 (src/modules/registry/runtime-line.ts, docs/perstack.md): the
-- Perstack-compatible face serves only these, and filters its lists on this column. Generated, so every row
-- (existing ones included) has it and nothing can write it out of step with min_runtime_version.
ALTER TABLE registry_experts ADD COLUMN runs_on_v1_0 boolean NOT NULL
  GENERATED ALWAYS AS (min_runtime_version ~ '^v?(0([.+-]|$)|1([+-]|$)|1\.0([.+-]|$))') STORED;
--> statement-breakpoint
-- A face's total is the organization's count of latest versions less those that need a newer runtime: few,
-- so this index keeps that count cheap.
CREATE INDEX registry_latest_needs_newer_runtime ON registry_experts (organization_id)
  WHERE is_latest AND NOT runs_on_v1_0;
