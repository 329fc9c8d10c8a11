-- Verified email domains (docs/domains.md): an organization claims a domain and proves it with a DNS TXT record
-- or a file at a well-known HTTPS path. Several organizations may claim the same domain while it is unproven;
-- only one may hold it verified (the partial unique index below decides a race between two proofs).
CREATE TABLE organization_domains (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id),
  domain text NOT NULL,
  -- The value to publish (not a secret: it is public in DNS once published).
  challenge text NOT NULL,
  -- How the last successful proof was made: dns or http.
  method text CHECK (method IN ('dns', 'http')),
  verified_at timestamptz,
  last_checked_at timestamptz,
  -- Consecutive failed re-checks of a verified domain; at the configured number it lapses.
  failures integer NOT NULL DEFAULT 0,
  last_error text,
  lapsed_at timestamptz,
  created_at timestamptz NOT NULL,
  UNIQUE (organization_id, domain)
);
--> statement-breakpoint
CREATE UNIQUE INDEX organization_domains_verified_once ON organization_domains (domain)
  WHERE verified_at IS NOT NULL;
