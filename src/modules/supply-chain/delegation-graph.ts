import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { registryExperts as e, parseExpertKey, registryNames, textArray } from '../registry/index.js';

/**
 * The delegation graph as the registry checks it (docs/registry.md "Delegation cycles"). An edge goes from a version
 * to what each of its delegates may name: an exact key (`b@1.2.0`) to that version; a floating key (`b`,
 * `b@latest`, `b@stable`) to every live version of the name, since `latest` and tags move without a publish.
 * So only a publish adds edges: tag updates, status changes, deletes and takedowns never close a cycle, and
 * never walk the graph.
 */

/** The longest delegation chain a new version may start (edges: `a → b` is 1). */
export const DELEGATION_DEPTH_LIMIT = 32;

export interface DelegationStart {
  id: string;
  name: string;
  version: string;
}

export type DelegationProblem =
  | { kind: 'cycle'; path: string[] }
  | { kind: 'tooDeep'; depth: number; limit: number };

/** A key's name and, when it names an exact version, that version (SemVer has dots; tags never do). */
const keyName = (key: ReturnType<typeof sql>) => sql`substring(${key} from '^(@?[^@]+)')`;
const keySuffix = (key: ReturnType<typeof sql>) => sql`substring(${key} from '^@?[^@]+@(.*)$')`;

/**
 * Every version reachable from `start` with the length of each path to it, in one recursive query bounded by
 * the depth limit (one level past it, to tell a chain that is too deep). The stored graph has no cycle, so a
 * path only repeats a version when it comes back to `start`, where it stops.
 */
async function walk(tx: Executor, start: DelegationStart) {
  const key = sql.raw('d.key');
  const result = await tx.execute(sql`
    WITH RECURSIVE walk(id, depth) AS (
      SELECT ${start.id}::text, 0
      UNION
      SELECT target.id, walk.depth + 1
      FROM walk
      JOIN ${e} AS source ON source.id = walk.id
      CROSS JOIN LATERAL unnest(source.delegates) AS d(key)
      JOIN ${e} AS target ON target.name = ${keyName(key)}
        AND (position('.' in coalesce(${keySuffix(key)}, '')) = 0 OR target.version = ${keySuffix(key)})
      WHERE walk.depth <= ${DELEGATION_DEPTH_LIMIT} AND (walk.depth = 0 OR walk.id <> ${start.id})
    )
    SELECT walk.id, walk.depth, v.name
    FROM walk JOIN ${e} AS v ON v.id = walk.id
    WHERE walk.depth > 0`);
  return (result as unknown as { rows: Array<{ id: string; depth: number; name: string }> }).rows;
}

/**
 * Checks the delegation from `start` (already written in this transaction): a cycle back to it, or a chain
 * longer than the limit. Each name on the way is locked FOR SHARE (in name order) and the walk repeated until
 * it reaches no name it has not locked: a concurrent publish on the path (which holds its name FOR UPDATE)
 * either committed before and is seen, or waits for this transaction. Two publishes closing one cycle from
 * both ends lock each other's names and deadlock; PostgreSQL aborts one, which is retried and then sees the
 * other's commit.
 */
export async function checkDelegation(
  tx: Executor,
  start: DelegationStart,
): Promise<DelegationProblem | undefined> {
  const locked = new Set([start.name]);
  for (;;) {
    const reached = await walk(tx, start);
    const unlocked = [...new Set(reached.map((row) => row.name))].filter((name) => !locked.has(name)).sort();
    if (unlocked.length > 0) {
      await tx.execute(
        sql`SELECT name FROM ${registryNames} WHERE name = ANY(${textArray(unlocked)}) ORDER BY name FOR SHARE`,
      );
      for (const name of unlocked) locked.add(name);
      continue;
    }
    if (reached.some((row) => row.id === start.id)) {
      return {
        kind: 'cycle',
        path: await cyclePath(
          tx,
          start,
          reached.map((row) => row.id),
        ),
      };
    }
    const depth = Math.max(0, ...reached.map((row) => Number(row.depth)));
    if (depth > DELEGATION_DEPTH_LIMIT) return { kind: 'tooDeep', depth, limit: DELEGATION_DEPTH_LIMIT };
    return undefined;
  }
}

/** The shortest way from `start` back to itself among the versions the walk reached, as `name@version`s. */
async function cyclePath(tx: Executor, start: DelegationStart, ids: string[]): Promise<string[]> {
  const result = await tx.execute(
    sql`SELECT id, name, version, delegates FROM ${e} WHERE id = ANY(${textArray([...new Set(ids)])})`,
  );
  const nodes = (result as unknown as { rows: Array<DelegationStart & { delegates: string[] }> }).rows;
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const label = (node: DelegationStart) => `${node.name}@${node.version}`;
  // An exact key leads to its version; a floating one (tag, latest, bare name) to every version of the name.
  const targets = (text: string) => {
    const key = parseExpertKey(text);
    return nodes.filter((node) => node.name === key.name && (!key.version || node.version === key.version));
  };
  // Breadth first from start's delegates; `cameFrom` leads back along the shortest way.
  const cameFrom = new Map<string, string>();
  let frontier = [start.id];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const key of byId.get(id)?.delegates ?? []) {
        for (const target of targets(key)) {
          if (cameFrom.has(target.id)) continue;
          cameFrom.set(target.id, id);
          if (target.id === start.id) {
            const path = [label(start)];
            for (let at = id; at !== start.id; at = cameFrom.get(at) as string) {
              path.unshift(label(byId.get(at) as DelegationStart));
            }
            return [label(start), ...path];
          }
          next.push(target.id);
        }
      }
    }
    frontier = next;
  }
  return [label(start), label(start)];
}
