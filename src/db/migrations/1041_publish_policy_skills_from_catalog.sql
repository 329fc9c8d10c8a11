-- The publish-policy rule "Experts' skills come from the catalog" (docs/registry.md "Skills from the MCP
-- catalog"): off for every organization until an owner or admin turns it on.
ALTER TABLE registry_publish_policies ADD COLUMN skills_from_catalog boolean NOT NULL DEFAULT false;
