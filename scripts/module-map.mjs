// The module map (docs/architecture.md, "Module map"): which module under src/modules/ may import which, and
// why. dependency-cruiser (.dependency-cruiser.mjs) fails `npm test` on an import along an edge not listed here,
// and `npm run architecture:graph` draws the graph in docs/architecture.md from the imports it finds. Listed
// bottom-up: a module only names modules above it in this list, so the map is a directed acyclic graph (the
// check below refuses a map that is not).

export const MODULE_MAP = {
  auth: {},
  tenancy: {
    auth: 'an organization is checked against the permission model before it is read or changed',
  },
  sessions: {
    auth: 'a console session is a principal',
    tenancy: 'a session belongs to a user of an organization',
  },
  metrics: {},
  idempotency: {
    tenancy: 'a stored answer belongs to a user of an organization',
  },
  audit: {
    auth: 'reading the audit log is a permission; a record names its principal',
    tenancy: 'records belong to an organization',
  },
  billing: {
    auth: 'billing reads and writes are permissions',
    tenancy: 'a plan belongs to an organization',
    audit: 'plan changes are audited',
    metrics: "the providers' calls are measured",
    idempotency: 'a subscription change answers a repeated Idempotency-Key with the first answer',
  },
  'api-keys': {
    auth: 'a key carries grants; its routes are permissions',
    tenancy: 'keys belong to an organization and a user',
    audit: 'key creation and revocation are audited',
    billing: 'creating a key checks the plan limit',
    metrics: 'authentication outcomes are counted',
  },
  events: {
    auth: 'reading events is a permission',
    tenancy: 'events belong to an organization',
    audit: 'events are derived from audit records, written in the same statement (the events register with the trail)',
    billing: "a plan limit nearly used raises an event (the periodic check reads billing's counters)",
    'api-keys': 'a key about to expire raises an event',
  },
  'tenancy-admin': {
    tenancy: "the operator's organizations, members, projects and passwords",
    'api-keys': "an organization is created with its owner's API key",
    sessions: "setting a user's password ends the user's sessions",
  },
  webhooks: {
    auth: 'endpoint management is a permission',
    tenancy: 'endpoints belong to an organization',
    audit: 'endpoint changes and deliveries are audited',
    events: 'a webhook delivers events',
    metrics: "the delivery worker's attempts and give-ups are counted",
  },
  oauth: {
    tenancy: "integrations belong to an organization, connections to one of its projects' environments",
    billing: "the plan's connection limit is counted over the connections table (billing's OwnedCounters)",
  },
  integrations: {
    auth: 'registering, changing and removing an integration are permissions',
    tenancy: 'an integration belongs to an organization; removing one names the environments its connections serve',
    audit: 'integration changes are audited',
    oauth: "an integration's versions are OAuth's records, registered for a preset, at endpoints Cadre may reach",
  },
  connections: {
    auth: 'listing and disconnecting connections are permissions on their environment',
    tenancy: "a connection belongs to one of the organization's project environments",
    audit: 'disconnecting is audited',
    events: 'a connection whose refresh fails raises an event',
    oauth: "connections are OAuth's records; their tokens are refreshed and revoked at the provider",
    integrations: "a connection's tokens are refreshed and revoked with its integration version's client",
  },
  'key-rotation': {},
  'oauth-flow': {
    auth: 'starting a flow and verifying an integration are permissions',
    tenancy: "a flow connects one of the organization's project environments",
    audit: 'new connections and verified integrations are audited',
    billing: 'a new connection counts against the plan',
    metrics: "the providers' calls are measured",
    oauth: "the flow runs the provider's protocol for a preset and stores OAuth's records",
    integrations: "a flow uses the integration's current version; verifying appends a verified one",
    connections: 'a flow stores the connection it made; the module composes the connections under it',
    'key-rotation': "the module composes the key rotation over OAuth's secrets and the other modules'",
  },
  registry: {
    tenancy: 'an Expert belongs to an organization, whose slug and creation date a record shows as its owner',
    billing: "the plan's monthly published versions are counted over the versions table (billing's OwnedCounters)",
    metrics: "the records' read cache counts its hits, misses and evictions",
  },
  'supply-chain': {
    auth: 'reading and changing the publish policy, and deciding approvals, are permissions',
    tenancy: 'a policy belongs to an organization; an approval names the member who asked for it',
    audit: 'policy changes are audited',
    registry: 'integrity, diffs, dependents and the delegation graph are read from the Expert records',
  },
  'registry-faces': {
    auth: 'publishing and reading private Experts are permissions',
    tenancy: 'Experts belong to an organization; its account type decides the naming rule',
    audit: 'publishes, deletions, takedowns and approvals are audited',
    billing: 'publishing checks the plan limits',
    metrics: 'the read cache is measured',
    registry: 'the faces serve the Expert records and apply their rules',
    'supply-chain': 'a publish is checked against the publish policy, the catalog rule and the delegation graph',
  },
  'mcp-catalog': {
    auth: 'catalog management is a permission',
    tenancy: 'a catalog belongs to an organization',
    audit: 'catalog changes are audited',
    metrics: 'catalog reads are counted by route and by cache or database',
  },
  members: {
    auth: 'managing members is a permission',
    tenancy: 'members are users of an organization',
    audit: 'invitations and role changes are audited',
    'api-keys': "removing a member revokes the member's keys",
    sessions: "removing a member ends the member's sessions; accepting an invitation spends the password-guess budget",
  },
  'cli-logins': {
    auth: 'a login request asks for grants',
    tenancy: 'a login belongs to a user of an organization',
    'api-keys': 'an approved login is an API key',
  },
  organization: {
    auth: 'organization settings and projects are permissions',
    tenancy: 'the organization, its projects and environments',
    audit: 'settings and project changes are audited',
    'api-keys': "a project's deletion revokes its keys",
    oauth: "a project's deletion names the connections that block it",
    integrations: "a project's page lists the organization's integrations",
    connections: "a project's deletion disconnects its connections",
    sessions: "an account's password change ends its sessions",
  },
  domains: {
    auth: 'claiming and verifying a domain are permissions',
    tenancy: 'a verified domain belongs to an organization',
    audit: 'claims, proofs and lapses are audited',
  },
  sso: {
    auth: "the provider's settings and the role rules are permissions",
    tenancy: 'a sign-in finds or makes the account and its membership',
    audit: 'settings, enforcement and break-glass sign-ins are audited',
    sessions: 'a successful sign-in starts a console session; enforcement refuses password sign-in',
    domains: "an address at a verified domain goes to that organization's provider",
  },
  scim: {
    auth: 'the SCIM token is managed under a permission',
    tenancy: 'a provisioned user is an account of the organization',
    audit: 'tokens, provisioning and deprovisioning are audited',
    members: 'deprovisioning removes the member as an owner would',
    sso: "groups map to roles through the organization's role rules",
    domains: "users are provisioned only at the organization's verified domains",
  },
  console: {},
  system: {},
};

// A module may name only modules listed before it: the map stays a DAG by construction.
const order = Object.keys(MODULE_MAP);
for (const [index, name] of order.entries()) {
  for (const used of Object.keys(MODULE_MAP[name])) {
    if (!order.slice(0, index).includes(used)) {
      throw new Error(`module map: ${name} → ${used} must point to a module listed before ${name}`);
    }
  }
}
