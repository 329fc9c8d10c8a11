import { type CachedAnswer, type ListExpertsQuery, type ParsedExpertKey, repo } from '../registry/index.js';
import {
  DEPENDENTS_DEPTH_LIMIT,
  DEPENDENTS_LIMIT,
  dependentsOf,
  diffDefinitions,
} from '../supply-chain/index.js';
import { presentExpert, presentVersion, type RegistryView, registryView } from './registry.presenters.js';
import { answer, badRequest, expertNotFound, type RegistryContext } from './registry-context.js';

// The cache key of a name's versions answer (no version or tag starts with a slash).
const VERSIONS_REF = '/versions';

/** The faces' reads: cached by face and name, answered as the exact bytes sent with their ETag. */
export function createRegistryReads(ctx: RegistryContext) {
  const { db, cache, reads, listLatest, missing } = ctx;

  /**
   * A cached answer synchronously (the hot path costs no promise); otherwise a read. Each face (`view`) has
   * answers of its own in the cache, under its name; a change to a name drops every face's.
   */
  function get(
    key: ParsedExpertKey,
    view: RegistryView = registryView,
  ): CachedAnswer | Promise<CachedAnswer> {
    const ref = `${view.name}${key.version ?? key.tag ?? ''}`;
    return cache.get(key.name, ref) ?? readExpert(key, ref, view);
  }

  async function readExpert(key: ParsedExpertKey, ref: string, view: RegistryView): Promise<CachedAnswer> {
    const token = cache.token();
    const expert = await reads.readByKey(key);
    if (!expert) throw await missing(db, key);
    const fresh = answer({ data: { expert: view.expert(expert) } });
    cache.set(key.name, ref, fresh, token);
    return fresh;
  }

  function versions(
    key: ParsedExpertKey,
    view: RegistryView = registryView,
  ): CachedAnswer | Promise<CachedAnswer> {
    return cache.get(key.name, `${view.name}${VERSIONS_REF}`) ?? readVersions(key, view);
  }

  async function readVersions(key: ParsedExpertKey, view: RegistryView): Promise<CachedAnswer> {
    const token = cache.token();
    const rows = await reads.readVersions(key.name);
    const latest = rows.find((row) => row.isLatest);
    if (!latest) throw expertNotFound(key.name);
    const items = rows.map(view.versionItem).filter((item) => item !== undefined);
    const fresh = answer({
      data: { versions: items, latest: latest.version },
      meta: { total: items.length },
    });
    cache.set(key.name, `${view.name}${VERSIONS_REF}`, fresh, token);
    return fresh;
  }

  async function list(query: ListExpertsQuery, view: RegistryView = registryView): Promise<CachedAnswer> {
    const normalized = JSON.stringify([
      view.name,
      query.organizationId ?? null,
      query.filter?.toLowerCase() ?? null,
      query.q?.toLowerCase() ?? null,
      query.sort ?? 'createdAt',
      query.order,
      query.take,
      query.skip,
    ]);
    const cached = cache.getList(normalized);
    if (cached) return cached;
    const token = cache.token();
    const { rows, total } = await listLatest(query, view.list);
    const fresh = answer({
      data: { experts: rows.map(view.listItem) },
      meta: { total, take: query.take, skip: query.skip },
    });
    cache.setList(normalized, fresh, token);
    return fresh;
  }

  /** The versions that delegate to any version of `key`'s name (not cached: read on an Expert's page). */
  async function delegators(key: ParsedExpertKey): Promise<CachedAnswer> {
    const rows = await repo.delegatorsOf(db, key.name);
    return answer({ data: { experts: rows.map(presentVersion) }, meta: { total: rows.length } });
  }

  /**
   * What changed from one version of a name to another (version-diff.ts). Read fresh, not cached: it is
   * asked for by a reviewer, not on a hot path. Both keys must name the same Expert name.
   */
  async function diff(from: ParsedExpertKey, to: ParsedExpertKey): Promise<CachedAnswer> {
    if (from.name !== to.name) {
      throw badRequest(`Compare two versions of one name: "${from.name}" and "${to.name}" differ`);
    }
    const [before, after] = await Promise.all([reads.readByKey(from), reads.readByKey(to)]);
    if (!before) throw await missing(db, from);
    if (!after) throw await missing(db, to);
    const left = presentExpert(before);
    const right = presentExpert(after);
    return answer({
      data: {
        diff: {
          from: left.key,
          to: right.key,
          fromIntegrity: left.integrity,
          toIntegrity: right.integrity,
          ...diffDefinitions(left, right),
        },
      },
    });
  }

  /** The versions that delegate to `key`'s version, directly and transitively (dependents.ts; not cached). */
  async function dependents(key: ParsedExpertKey): Promise<CachedAnswer> {
    const expert = await reads.readByKey(key);
    if (!expert) throw await missing(db, key);
    const rows = await dependentsOf(db, expert);
    const shown = rows.slice(0, DEPENDENTS_LIMIT);
    return answer({
      data: {
        key: `${expert.name}@${expert.version}`,
        dependents: shown.map((row) => ({
          key: `${row.name}@${row.version}`,
          name: row.name,
          version: row.version,
          depth: row.depth,
          path: row.path,
          references: row.references,
        })),
      },
      meta: {
        total: shown.length,
        truncated: rows.length > DEPENDENTS_LIMIT,
        depthLimit: DEPENDENTS_DEPTH_LIMIT,
        limit: DEPENDENTS_LIMIT,
      },
    });
  }

  return { get, versions, list, delegators, diff, dependents };
}
