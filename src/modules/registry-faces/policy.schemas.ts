import { z } from 'zod';
import { PRESETS, publishPolicyChange, publishPolicyRules } from '../supply-chain/index.js';

const timestamp = z.string().meta({ format: 'date-time' });

const publishPolicySchema = z
  .object({
    allowedCommands: publishPolicyRules.allowedCommands.meta({
      description: 'Commands an mcpStdioSkill may run (every skill, the base skill included); null: any',
      example: ['npx', 'uvx'],
    }),
    requirePinnedVersions: publishPolicyRules.requirePinnedVersions.meta({
      description:
        'npx and uvx packages must name an exact version (docs/registry.md "Pinned package versions")',
    }),
    allowedSseHosts: publishPolicyRules.allowedSseHosts.meta({
      description: 'Hosts an mcpSseSkill endpoint may name (`*.example.com`: its subdomains); null: any',
      example: ['mcp.example.com', '*.internal.example.com'],
    }),
    approvalRequiredForWidening: publishPolicyRules.approvalRequiredForWidening.meta({
      description:
        'A version that widens access over `latest` is published but takes `latest` only once a second owner or ' +
        'admin approves it',
    }),
    skillsFromCatalog: publishPolicyRules.skillsFromCatalog.meta({
      description:
        'Every npx/uvx package of an mcpStdioSkill (identifier and exact version) and every mcpSseSkill endpoint must be in an active server version of the organization\'s MCP catalog (docs/registry.md "Skills from the MCP catalog")',
    }),
  })
  .meta({ id: 'PublishPolicy' });

export const publishPolicyAnswer = z
  .object({
    data: z.object({
      policy: publishPolicySchema,
      /** When and by whom it was last changed; null for an organization still on the open policy. */
      updatedAt: timestamp.nullable(),
      updatedByUserId: z.string().nullable(),
      presets: z
        .object({ recommended: z.object({ allowedCommands: z.array(z.string()) }) })
        .meta({ description: 'What each preset of a change sets', example: PRESETS }),
      warnings: z.array(z.string()).meta({
        description:
          'What the policy does that its owners may not mean: approval required with nobody to approve (one owner, no admin)',
      }),
    }),
  })
  .meta({ id: 'PublishPolicyAnswer' });

export const publishPolicyChangeBody = publishPolicyChange.meta({
  id: 'PublishPolicyChange',
  description:
    'The rules to change (each replaces its value; rules not named keep theirs), optionally after a preset ' +
    '(`recommended`: allowedCommands npx and uvx; rules named in the same body win over it). At least one.',
});

export const approvalSchema = z
  .object({
    id: z.string(),
    key: z.string().meta({ example: '@acme/writer@1.3.0' }),
    name: z.string(),
    version: z.string(),
    status: z.enum(['pending', 'approved', 'rejected']),
    previousVersion: z
      .string()
      .nullable()
      .meta({ description: 'The version holding `latest` when this one was published (compared with)' }),
    diff: z
      .object({
        from: z.string().nullable(),
        to: z.string(),
        widensAccess: z.literal(true),
        reasons: z.array(z.string()).meta({ description: 'Why it widens access, one line per change' }),
      })
      .meta({
        description:
          'The summary; the whole diff is GET /registry/diff?from=<from>&to=<to> (when from is not null)',
      }),
    requestedBy: z.object({ userId: z.string(), name: z.string().nullable() }),
    decidedByUserId: z.string().nullable(),
    decidedAt: timestamp.nullable(),
    createdAt: timestamp,
  })
  .meta({ id: 'RegistryApproval' });

export const approvalsQuery = z.object({
  status: z.enum(['pending', 'approved', 'rejected']).default('pending'),
});

export const approvalsAnswer = z.object({
  data: z.object({ approvals: z.array(approvalSchema) }),
  meta: z.object({ total: z.number().int(), limit: z.number().int() }),
});

export const approvalParams = z.object({ approvalId: z.string().min(1).max(64) });

export const decisionAnswer = z.object({
  data: z.object({
    approval: approvalSchema,
    movedLatest: z.boolean().meta({
      description:
        'Whether `latest` moved to the version (an approval moves it when the version is still the most recently ' +
        'published one that may hold it; a rejection never does)',
    }),
  }),
});

export type Approval = z.infer<typeof approvalSchema>;
