/**
 * Which Experts run on runtime v1.0: the only runtime the Perstack-compatible face can describe (its clients
 * accept `minRuntimeVersion: "v1.0"` and nothing else). A stored minRuntimeVersion needs no newer runtime when
 * its major is 0, or its major is 1 with no minor or a minor of 0 (`v1`, `1.0`, `v1.0`, `1.0.0`, `1.0.7`,
 * `0.3.1`, `1-beta`); `1.1`, `v2` and `2.0.0` need a newer one (docs/perstack.md "Runtime versions").
 *
 * The same test is a generated column (`registry_experts.runs_on_v1_0`, migration 0900) so lists filter on it
 * in the database; `RUNTIME_V1_0_PATTERN.source` is the pattern that migration holds (a test keeps them equal).
 */
export const RUNTIME_V1_0_PATTERN = /^v?(0([.+-]|$)|1([+-]|$)|1\.0([.+-]|$))/;

/** What the Perstack-compatible face answers for every Expert it serves. */
export const PERSTACK_RUNTIME_VERSION = 'v1.0' as const;

export const runsOnV1_0 = (minRuntimeVersion: string): boolean =>
  RUNTIME_V1_0_PATTERN.test(minRuntimeVersion);
