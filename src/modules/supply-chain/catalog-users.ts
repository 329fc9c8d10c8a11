/**
 * Which skills of an organization's Experts use which packages and endpoints, for the MCP catalog's pages
 * (docs/mcp-registry.md "Who uses a server"): the registry's side of a port the catalog defines, read with
 * the same refs the publish-policy rule checks (catalog-rule.ts), so a link and the rule never disagree.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { registryExperts as e, type Skills } from '../registry/index.js';
import { catalogRefs } from './catalog-rule.js';

type Ref =
  | { kind: 'package'; registryType: string; identifier: string; version: string }
  | { kind: 'remote'; url: string };

export interface SkillUse {
  expert: string;
  version: string;
  skill: string;
  ref: Ref;
}

/** Each skill's refs, one skill at a time so each ref keeps its skill's name. */
function usesOf(row: { name: string; version: string; skills: Skills }): SkillUse[] {
  return Object.entries(row.skills).flatMap(([skill, definition]) =>
    catalogRefs({ skills: { [skill]: definition } }, () => false).refs.map(({ path: _path, ...ref }) => ({
      expert: row.name,
      version: row.version,
      skill,
      ref,
    })),
  );
}

/** Where a LIKE pattern holds `text` literally. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export function createCatalogUsers(executor: Executor) {
  return {
    /**
     * The skills of the organization's latest Expert versions whose definition mentions one of `texts` (a
     * package identifier or an endpoint), with what each uses; the caller keeps the exact matches.
     */
    async ofOrganization(organizationId: string, texts: string[]): Promise<SkillUse[]> {
      if (texts.length === 0) return [];
      const patterns = texts.map(containing);
      const rows = await executor
        .select({ name: e.name, version: e.version, skills: e.skills })
        .from(e)
        .where(
          and(
            eq(e.organizationId, organizationId),
            eq(e.isLatest, true),
            sql`${e.skills}::text LIKE ANY (${sql.param(patterns)}::text[])`,
          ),
        )
        .orderBy(e.name);
      return rows.flatMap(usesOf);
    },
    /** What one of the organization's Expert versions uses (nothing for another organization's). */
    async ofExpert(organizationId: string, name: string, version: string): Promise<SkillUse[]> {
      const [row] = await executor
        .select({ name: e.name, version: e.version, skills: e.skills })
        .from(e)
        .where(and(eq(e.organizationId, organizationId), eq(e.name, name), eq(e.version, version)));
      return row ? usesOf(row) : [];
    },
  };
}
