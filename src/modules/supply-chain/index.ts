// Supply-chain intelligence's public entry (integrity, diffs, dependents, the delegation graph, publish
// policies, approvals, the catalog rule): what the registry's faces and the composition may use.

export { type CatalogLookup, catalogRefs, notInCatalog } from './catalog-rule.js';
export { createCatalogUsers } from './catalog-users.js';
export { checkDelegation, type DelegationProblem } from './delegation-graph.js';
export { DEPENDENTS_DEPTH_LIMIT, DEPENDENTS_LIMIT, dependentsOf } from './dependents.js';
export { backfillIntegrity, integrityOf } from './integrity.js';
export * as policies from './policy.repo.js';
export type { ApprovalRow } from './policy.tables.js';
export {
  applyPolicyChange,
  isRuntimeBase,
  OPEN_POLICY,
  type PolicyViolation,
  PRESETS,
  type PublishPolicy,
  type PublishPolicyChange,
  policyViolations,
  publishPolicyChange,
  publishPolicyRules,
} from './publish-policy.js';
export { diffDefinitions } from './version-diff.js';
