import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { registryExperts as e, registryTags } from '../registry/index.js';

/**
 * The versions that delegate to a version, directly and transitively (docs/registry.md "Dependents"), on the
 * graph delegation-graph.ts checks, walked backwards: a version V is delegated to by every version whose
 * delegates hold `V.name@V.version` exactly or a floating key of its name (`name`, `name@latest`,
 * `name@<tag>` for a tag of the name), since `latest` and tags move onto any version without a publish.
 * One recursive query; each level finds its delegators through the GIN index on `delegates` (`&&`).
 */

/** How many delegation levels up the walk goes. */
export const DEPENDENTS_DEPTH_LIMIT = 8;
/** How many dependents one answer lists at most (the walk stops once it has found this many). */
export const DEPENDENTS_LIMIT = 200;

export interface DependentRow {
  id: string;
  name: string;
  version: string;
  depth: number;
  /** From the dependent down to the version asked about, as `name@version`s. */
  path: string[];
  /**
   * Each step of `path` as its delegate is written (one fewer than `path`): `writer@1.0.0` when pinned,
   * `writer`, `writer@latest` or `writer@<tag>` when it floats (it reaches this version while the tag is here).
   */
  references: string[];
}

export async function dependentsOf(executor: Executor, start: { id: string }): Promise<DependentRow[]> {
  const keysOf = (alias: string) => {
    const v = sql.raw(alias);
    return sql`ARRAY[${v}.name, ${v}.name || '@latest', ${v}.name || '@' || ${v}.version] ||
      coalesce((SELECT array_agg(${v}.name || '@' || t.tag) FROM ${registryTags} AS t WHERE t.name = ${v}.name), '{}')`;
  };
  const result = await executor.execute(sql`
    WITH RECURSIVE up(id, depth, path, refs) AS (
      SELECT v.id, 0, ARRAY[v.name || '@' || v.version], ARRAY[]::text[]
      FROM ${e} AS v WHERE v.id = ${start.id}
      UNION ALL
      SELECT source.id, up.depth + 1, (source.name || '@' || source.version) || up.path,
        -- The delegate as written; the exact version first when a version names it both ways.
        (SELECT d FROM unnest(source.delegates) AS d WHERE d = ANY(${keysOf('v')})
          ORDER BY d = v.name || '@' || v.version DESC, d LIMIT 1) || up.refs
      FROM up
      JOIN ${e} AS v ON v.id = up.id
      JOIN ${e} AS source ON source.delegates && (${keysOf('v')})
      WHERE up.depth < ${DEPENDENTS_DEPTH_LIMIT}
        AND NOT (source.name || '@' || source.version) = ANY(up.path)
    )
    SELECT DISTINCT ON (up.id) up.id, s.name, s.version, up.depth, up.path, up.refs AS "references"
    FROM up JOIN ${e} AS s ON s.id = up.id
    WHERE up.depth > 0
    ORDER BY up.id, up.depth, up.path
    LIMIT ${DEPENDENTS_LIMIT + 1}`);
  const rows = (result as unknown as { rows: DependentRow[] }).rows.map((row) => ({
    ...row,
    depth: Number(row.depth),
  }));
  return rows.sort(
    (a, b) => a.depth - b.depth || a.name.localeCompare(b.name) || a.version.localeCompare(b.version),
  );
}
