import type { components } from '../api/schema.js';

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
    label: 'Billing',
    actions: [
      ['subscription.created', 'Subscription started'],
      ['subscription.updated', 'Subscription changed'],
      ['subscription.canceled', 'Subscription canceled'],
    ],
  },
];

const show = (value: unknown): string => {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && 'name' in value) return String(value.name);
  return JSON.stringify(value);
};

/** An event's details in words: what changed (from → to) and the rest of its metadata, one line each. */
export function detailsOf(event: AuditEvent): string[] {
  const meta = event.metadata ?? {};
  const lines: string[] = [];
  if ('from' in meta || 'to' in meta) lines.push(`${show(meta.from)} → ${show(meta.to)}`);
  for (const [key, value] of Object.entries(meta)) {
    if (key === 'from' || key === 'to' || value === null || value === undefined) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    lines.push(`${key}: ${show(value)}`);
  }
  return lines;
}
