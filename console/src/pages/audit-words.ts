import type { components } from '../api/schema.js';
import { expertPath } from '../format.js';

type AuditEvent = components['schemas']['AuditEvent'];

/** The documented actions (docs/organization-api.md, "Actions"), grouped and in words, for the filter. */
export const AUDIT_ACTIONS: ReadonlyArray<{ label: string; actions: ReadonlyArray<[string, string]> }> = [
  {
    label: 'Members',
    actions: [
      ['invitation.created', 'Invitation sent'],
      ['invitation.revoked', 'Invitation revoked'],
      ['membership.created', 'Member added'],
      ['membership.role_changed_to_admin', 'Role changed to admin'],
      ['membership.role_changed_to_member', 'Role changed to member'],
      ['membership.removed', 'Member removed'],
      ['organization.ownership_transferred_to', 'Ownership received'],
      ['organization.ownership_transferred_from', 'Ownership handed over'],
      ['user.renamed', 'Name changed'],
      ['user.password_changed', 'Password changed'],
      ['user.credentials_reset', 'Unproven account reset'],
      ['organization.renamed', 'Organization renamed'],
    ],
  },
  {
    label: 'API keys',
    actions: [
      ['api_key.created', 'API key created'],
      ['api_key.revoked', 'API key revoked'],
    ],
  },
  {
    label: 'Projects',
    actions: [
      ['project.created', 'Project created'],
      ['project.renamed', 'Project renamed'],
      ['project.deleted', 'Project deleted'],
      ['environment.created', 'Environment created'],
      ['environment.renamed', 'Environment renamed'],
      ['environment.deleted', 'Environment deleted'],
      ['agent.created', 'Agent created'],
      ['agent.renamed', 'Agent renamed'],
      ['agent.deleted', 'Agent deleted'],
    ],
  },
  {
    label: 'Connections and integrations',
    actions: [
      ['connection.created', 'Account connected'],
      ['connection.updated', 'Account reconnected'],
      ['connection.deleted', 'Account disconnected'],
      ['integration.created', 'Integration registered'],
      ['integration.updated', 'Integration changed'],
      ['integration.verified', 'Integration verified'],
      ['integration.removed', 'Integration removed'],
    ],
  },
  {
    label: 'Registry',
    actions: [
      ['expert.published', 'Expert published'],
      ['expert.updated', 'Expert version changed'],
      ['expert.deleted', 'Expert version deleted'],
      ['expert.taken_down', 'Expert taken down by the operator'],
      ['expert.approved', 'Expert version approved'],
      ['expert.rejected', 'Expert version rejected'],
      ['publish_policy.updated', 'Publish policy changed'],
    ],
  },
  {
    label: 'Webhooks',
    actions: [
      ['webhook_endpoint.created', 'Webhook endpoint added'],
      ['webhook_endpoint.updated', 'Webhook endpoint changed'],
      ['webhook_endpoint.deleted', 'Webhook endpoint deleted'],
      ['webhook_endpoint.secret_rotated', 'Webhook signing secret rotated'],
      ['webhook_endpoint.disabled', 'Webhook endpoint disabled by Cadre'],
    ],
  },
  {
    label: 'Billing',
    actions: [
      ['subscription.created', 'Subscription started'],
      ['subscription.updated', 'Subscription changed'],
      ['subscription.canceled', 'Subscription canceled'],
    ],
  },
];

const WORDS = new Map(AUDIT_ACTIONS.flatMap((group) => group.actions));
/** An action in words; an action this console does not know yet reads as its code. */
export const actionWords = (action: string) => WORDS.get(action) ?? action;

/**
 * Who did it, truthfully: a member through the console or a key, the operator, the organization's identity
 * provider through SCIM, or Cadre and why.
 */
export function actorWords(event: AuditEvent): { name: string; how: string } {
  const { kind, name } = event.actor;
  if (kind === 'admin') return { name: 'The operator', how: 'Admin API' };
  if (kind === 'scim') return { name: 'SCIM provisioning', how: 'by your identity provider' };
  // Accepting an invitation is recorded as Cadre adding the invitee (the invitee is not a member yet).
  if (kind === 'system' && event.action === 'membership.created' && name) {
    return { name, how: 'by accepting an invitation' };
  }
  if (kind === 'system') {
    const why = event.action.startsWith('subscription.')
      ? "on the payment provider's report"
      : event.action.startsWith('webhook_endpoint.')
        ? 'after failed deliveries'
        : 'automatically';
    return { name: 'Cadre', how: name ? `${why}, for ${name}` : why };
  }
  return {
    name: name ?? 'A former member',
    how: kind === 'apiKey' ? 'through an API key' : 'in the console',
  };
}

const POLICY_FIELDS: Record<string, string> = {
  allowedCommands: 'Commands a skill may run',
  requirePinnedVersions: 'Pinned package versions',
  allowedSseHosts: 'SSE hosts',
  approvalRequiredForWidening: 'Approval for widening',
  skillsFromCatalog: 'Skills from the MCP catalog',
};
const FIELD_WORDS: Record<string, string> = {
  ...POLICY_FIELDS,
  role: 'Role',
  email: 'Email',
  status: 'Status',
  tags: 'Tags',
  url: 'URL',
  reason: 'Why',
  eventTypes: 'Event types',
  changed: 'Changed',
  endedSessions: 'Sessions ended',
  accountId: 'Account',
  presetKey: 'Provider',
  version: 'Version',
  clientId: 'Client id',
  source: 'Reported by',
  plan: 'Plan',
  planKey: 'Plan',
  currentPeriodEnd: 'Period ends',
  cancelAtPeriodEnd: 'Cancels at period end',
  movedLatest: 'Became latest',
  preset: 'Preset',
  name: 'Name',
  slug: 'Slug',
  revocation: 'Revoked at the provider',
};
const REFERENCE_WORDS: Record<string, string> = {
  invitedByUserId: 'Invited by',
  invitationId: 'Invitation',
  expertId: 'Version',
  projectId: 'Project',
  environmentId: 'Environment',
  revokedApiKeyIds: 'Keys revoked',
  connections: 'Connections removed',
};
/** Details a person does not read in a sentence: ids (named through `references`) and bookkeeping. */
const UNSAID = new Set(['expiresAt', 'awaitingApproval', 'cascade', 'from', 'to']);

/** A value in words: on/off, "any" for no restriction, lists joined, dates as dates. */
function valueWords(value: unknown): string {
  if (value === null || value === undefined) return 'any';
  if (value === true) return 'on';
  if (value === false) return 'off';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.map(valueWords).join(', ');
  if (typeof value === 'object') {
    const named = (value as { name?: unknown }).name;
    if (typeof named === 'string') return named;
    return Object.entries(value as Record<string, unknown>)
      .map(([key, inner]) => `${FIELD_WORDS[key] ?? key}: ${valueWords(inner)}`)
      .join('; ');
  }
  return String(value);
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Every change of an event as a sentence ("Approval for widening: off → on", "Role: admin → member",
 * "Invited by Ada"); ids are said by their names (the API's `references`), never as ids. The raw details
 * stay in the side panel for those who want them.
 */
export function changeSentences(event: AuditEvent): string[] {
  const meta = event.metadata ?? {};
  const lines: string[] = [];
  const { from, to } = meta as { from?: unknown; to?: unknown };
  if ('from' in meta || 'to' in meta) {
    if (isRecord(from) || isRecord(to)) {
      // Two records (a policy, a subscription): one sentence per field that changed.
      const before = isRecord(from) ? from : {};
      const after = isRecord(to) ? to : {};
      for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
        if (!from || !same(before[key], after[key])) {
          const label = FIELD_WORDS[key] ?? key;
          lines.push(
            from
              ? `${label}: ${valueWords(before[key])} → ${valueWords(after[key])}`
              : `${label}: ${valueWords(after[key])}`,
          );
        }
      }
    } else {
      const label = event.action.startsWith('membership.role_changed')
        ? 'Role'
        : event.action.endsWith('renamed')
          ? 'Name'
          : 'Changed';
      lines.push(
        `${label}: ${from === null || from === undefined ? 'none' : valueWords(from)} → ${valueWords(to)}`,
      );
    }
  }
  for (const [key, value] of Object.entries(meta)) {
    if (UNSAID.has(key) || key in REFERENCE_WORDS || (/Ids?$/.test(key) && key !== 'accountId')) continue;
    if (value === null || value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    if (isRecord(value) && 'from' in value && 'to' in value) {
      lines.push(`${FIELD_WORDS[key] ?? key}: ${valueWords(value.from)} → ${valueWords(value.to)}`);
      continue;
    }
    if (key === 'eventTypes' && Array.isArray(value)) {
      lines.push(`${FIELD_WORDS[key]}: ${value.length === 1 ? '1 type' : `${value.length} types`}`);
      continue;
    }
    lines.push(`${FIELD_WORDS[key] ?? key}: ${valueWords(value)}`);
  }
  const named = new Map<string, string[]>();
  for (const reference of event.references) {
    // An Expert version is already the event's target: no need to say it twice.
    if (reference.field === 'expertId' && event.target.type === 'expert') continue;
    const list = named.get(reference.field) ?? [];
    list.push(reference.name ?? `a ${reference.type === 'apiKey' ? 'key' : reference.type} since deleted`);
    named.set(reference.field, list);
  }
  for (const [field, names] of named) {
    const words = REFERENCE_WORDS[field] ?? field;
    lines.push(
      field === 'invitedByUserId' ? `${words} ${names.join(', ')}` : `${words}: ${names.join(', ')}`,
    );
  }
  return lines;
}

/** Where the console shows what an event was made to, when it still exists. */
export function targetLink(event: AuditEvent): string | null {
  const { type, id } = event.target;
  switch (type) {
    case 'expert':
      return expertPath(id);
    case 'apiKey':
      return '/keys';
    case 'user':
    case 'invitation':
      return '/members';
    case 'project':
    case 'environment':
    case 'agent':
      return '/projects';
    case 'connection':
      return '/connections';
    case 'integration':
      return '/integrations';
    case 'webhookEndpoint':
      return event.action === 'webhook_endpoint.deleted'
        ? null
        : `/developers/webhooks/${encodeURIComponent(id)}`;
    case 'organization':
      return event.action === 'publish_policy.updated' ? '/publishing' : '/settings';
    case 'subscription':
      return '/billing';
    default:
      return null;
  }
}

/** What an event was made to, by name; a key may simply have none, anything else named nothing is gone. */
export function targetName(event: AuditEvent): string {
  return (
    event.target.name ??
    (event.target.type === 'apiKey'
      ? 'an unnamed API key'
      : `a ${TARGET_WORDS[event.target.type] ?? 'record'} since deleted`)
  );
}

export const TARGET_WORDS: Record<string, string> = {
  apiKey: 'API key',
  user: 'person',
  invitation: 'invitation',
  organization: 'organization',
  subscription: 'subscription',
  expert: 'Expert version',
  project: 'project',
  environment: 'environment',
  agent: 'agent',
  connection: 'connection',
  integration: 'integration',
  webhookEndpoint: 'webhook endpoint',
};
