/**
 * The change-bus topic tenancy publishes when a membership changes (a role, a removal, an account reset): the
 * API keys' cache listens for it and evicts the user's keys, so a demotion applies at once. Tenancy owns the
 * name and knows nothing of its listeners (docs/architecture.md, "Module map").
 */
export const MEMBERSHIP_CHANGED = 'membership';
