import { z } from 'zod';
import { dataOf } from '../../http/route-kit.js';
import { APPROVAL_STATUSES, CATALOG_ACCESS, SERVER_STATUSES } from './mcp-catalog.tables.js';
import { serverJsonSchema, serverNameSchema } from './server-json.schemas.js';

/** The registry's own data on each answer, under its reverse-DNS key (the MCP Registry's v0.1 API). */
export const OFFICIAL_META_KEY = 'io.modelcontextprotocol.registry/official';
/** Cadre's data on each answer, under Cadre's own reverse-DNS key. */
export const CADRE_META_KEY = 'dev.cadre/catalog';

const official = z.object({
  status: z.enum(SERVER_STATUSES),
  statusMessage: z.string().max(500).optional(),
  statusChangedAt: z.iso.datetime(),
  publishedAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  isLatest: z.boolean(),
});
const cadre = z.object({
  id: z.string().meta({ description: "The version's id in Cadre" }),
  organization: z.string().meta({ description: 'The slug of the organization whose catalog holds it' }),
  approval: z
    .object({
      status: z.enum(['pending', 'rejected']),
      reasons: z.array(z.string()).meta({ description: 'How the version widens access, in words' }),
      previousVersion: z.string().nullable().meta({ description: 'The version it was compared with' }),
    })
    .optional()
    .meta({
      description: 'On a version that waits for approval or was refused (the v0.1 reads never show one)',
    }),
});

/**
 * One server version in the v0.1 reads: the registry's own data only, the shape the MCP Registry answers.
 * Cadre's id and approval state are management data (`managedServerAnswer`): an IDE or a mirror names a version
 * by server name and version, and the organization is in the URL it reads (docs/mcp-registry.md).
 */
export const serverAnswer = z
  .object({
    server: serverJsonSchema,
    _meta: z.object({ [OFFICIAL_META_KEY]: official }),
  })
  .meta({
    id: 'McpServerResponse',
    description: 'One server version, as the MCP Registry v0.1 API answers it.',
  });
export type ServerAnswer = z.infer<typeof serverAnswer>;

export const serverListAnswer = z
  .object({
    servers: z.array(serverAnswer),
    metadata: z.object({
      nextCursor: z.string().optional().meta({ description: 'Absent on the last page' }),
      count: z.number().int().meta({ description: 'Servers on this page' }),
    }),
  })
  .meta({ id: 'McpServerList' });
export type ServerListAnswer = z.infer<typeof serverListAnswer>;

const flag = z
  .enum(['true', 'false'])
  .transform((value) => value === 'true')
  .optional();

export const listServersQuery = z.object({
  cursor: z.string().max(1024).optional().meta({ description: 'metadata.nextCursor of the previous page' }),
  limit: z.coerce.number().int().min(1).max(100).default(30),
  search: z.string().max(200).optional().meta({ description: 'Substring of the server name, any case' }),
  updated_since: z.iso
    .datetime({ offset: true })
    .optional()
    .meta({ description: 'Only versions changed after this time (RFC 3339); deleted ones included' }),
  version: z.string().max(255).optional().meta({ description: '`latest`, or one exact version' }),
  include_deleted: flag,
});
export type ListServersQuery = z.infer<typeof listServersQuery>;

export const includeDeletedQuery = z.object({ include_deleted: flag });

const orgParam = { organization: z.string().min(1).max(64).meta({ description: "The organization's slug" }) };
const linkParam = { secret: z.string().min(1).max(128).meta({ description: "The catalog link's secret" }) };
const serverParam = {
  serverName: serverNameSchema.meta({ description: 'URL-encoded (com.example%2Fweather)' }),
};
const versionParam = { version: z.string().min(1).max(255).meta({ description: 'A version, or `latest`' }) };

export const catalogParams = z.object(orgParam);
export const serverParams = z.object({ ...orgParam, ...serverParam });
export const versionParams = z.object({ ...orgParam, ...serverParam, ...versionParam });
export const linkParams = z.object(linkParam);
export const linkServerParams = z.object({ ...linkParam, ...serverParam });
export const linkVersionParams = z.object({ ...linkParam, ...serverParam, ...versionParam });

/** The management face: the catalog's settings, publishing and status changes. */
const catalogSettings = z
  .object({
    access: z.enum(CATALOG_ACCESS),
    organization: z.string().meta({ description: "The organization's slug: the catalog's address" }),
    url: z
      .url()
      .meta({ description: 'The URL to paste into an IDE or Copilot policy (public and key access)' }),
    linkCreated: z.boolean().meta({ description: 'Whether a catalog link exists (its URL is shown once)' }),
    updatedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'McpCatalogSettings' });
export const catalogSettingsAnswer = dataOf(catalogSettings);

export const catalogSettingsBody = z.strictObject({ access: z.enum(CATALOG_ACCESS) });

export const catalogLinkAnswer = dataOf(
  z.object({
    url: z
      .url()
      .meta({ description: 'The catalog link: shown once, it reads the catalog with no credential' }),
  }),
);

/** A server version as the management API answers it: the v0.1 answer with Cadre's own data added. */
export const managedServerAnswer = z
  .object({
    server: serverJsonSchema,
    _meta: z.object({ [OFFICIAL_META_KEY]: official, [CADRE_META_KEY]: cadre }),
  })
  .meta({
    id: 'McpManagedServer',
    description: "A server version with Cadre's id, organization and approval state (the management API).",
  });
export type ManagedServerAnswer = z.infer<typeof managedServerAnswer>;

export const publishedAnswer = dataOf(managedServerAnswer);

export const statusBody = z
  .strictObject({
    status: z.enum(SERVER_STATUSES),
    statusMessage: z.string().min(1).max(500).optional(),
  })
  .meta({ id: 'McpStatusChange' });
export type StatusChange = z.infer<typeof statusBody>;

export const managementVersionParams = z.object({ ...serverParam, ...versionParam });

export const managementServerParams = z.object(serverParam);

/** Who uses a server: the organization's Experts whose skills run one of its versions' packages or remotes. */
const serverUser = z
  .object({
    name: z.string().meta({ description: "The Expert's name" }),
    version: z.string().meta({ description: 'Its latest version, the one that uses the server' }),
    skills: z.array(z.string()).meta({ description: 'The skills that use it' }),
    serverVersions: z.array(z.string()).meta({ description: "The server's versions those skills run" }),
  })
  .meta({ id: 'McpServerUser' });
export const serverUsersAnswer = dataOf(z.array(serverUser));
export type ServerUser = z.infer<typeof serverUser>;

export const expertSkillsQuery = z.object({
  expert: z.string().min(1).max(214).meta({ description: "The Expert's name" }),
  version: z.string().min(1).max(255).meta({ description: 'The exact version' }),
});

/** Which catalog server version each skill of an Expert comes from. */
const skillEntry = z
  .object({
    skill: z.string(),
    server: z.object({
      name: z.string(),
      version: z.string(),
      status: z.enum(SERVER_STATUSES),
      isLatest: z.boolean(),
    }),
  })
  .meta({ id: 'McpSkillEntry' });
export const skillEntriesAnswer = dataOf(z.array(skillEntry));
export type SkillEntry = z.infer<typeof skillEntry>;

/** A version that widened access and waited for an owner's or admin's decision (docs/mcp-registry.md). */
const mcpApproval = z
  .object({
    id: z.string().meta({ description: "The version's id: the approval's too" }),
    name: z.string(),
    version: z.string(),
    status: z.enum(APPROVAL_STATUSES),
    previousVersion: z.string().nullable().meta({ description: 'The latest version it was compared with' }),
    reasons: z.array(z.string()).meta({ description: 'How it widens access, in words' }),
    publishedByUserId: z.string(),
    publishedAt: z.iso.datetime(),
    decidedByUserId: z.string().nullable(),
    decidedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'McpApproval' });
export type McpApproval = z.infer<typeof mcpApproval>;

export const mcpApprovalsQuery = z.object({
  status: z
    .enum(APPROVAL_STATUSES)
    .default('pending')
    .meta({ description: '`pending` (oldest first), `approved` or `rejected` (newest first)' }),
});
export const mcpApprovalParams = z.object({
  mcpApprovalId: z.string().min(1).max(64).meta({ description: "The waiting version's id" }),
});
export const mcpApprovalsAnswer = dataOf(z.array(mcpApproval));
export const mcpDecisionAnswer = dataOf(
  z.object({
    approval: mcpApproval,
    movedLatest: z.boolean().meta({ description: 'Whether the approved version took `latest`' }),
  }),
);
