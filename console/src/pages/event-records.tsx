import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { expertPath } from '../format.js';
import { useSession } from '../session.js';

type Event = components['schemas']['Event'];
type Member = components['schemas']['Member'];
type ApiKey = components['schemas']['ApiKey'];

/** What an event is on, in words: its kind, the record's name, and the console page that shows it (if any). */
export interface EventRecord {
  kind: string;
  name: string;
  link: string | null;
}

/** A list as read (at most 100 rows); `complete` when nothing was left unread, so a record missing is gone. */
interface Listed<T> {
  rows: T[];
  complete: boolean;
}

/** Each resource kind, capitalised as a column's first word (a kind missing here reads as its code). */
const KIND_WORDS: Record<string, string> = {
  apiKey: 'API key',
  user: 'Person',
  expert: 'Expert version',
  connection: 'Connection',
  subscription: 'Plan',
  organization: 'Organization',
  webhookEndpoint: 'Webhook endpoint',
  mcp_server: 'MCP server version',
  domain: 'Domain',
};

// The payload fields a record's name can come from (docs/webhooks.md, "Event types"); each is optional.
interface Payload {
  apiKey?: { name?: string | null };
  connection?: { presetKey?: string };
  webhookEndpoint?: { url?: string };
  domain?: { domain?: string };
}

/** The versions whose page is gone once the event happened: named, never linked. */
const GONE = new Set(['expert.deleted', 'expert.taken_down']);

/**
 * Names an event's record from what the console already read: the members list for people, the keys list for
 * API keys, the payload's own names otherwise (an Expert version's id is its `name@version`). A record no
 * longer listed (a removed person, a deleted key) says so in words, never as a bare id; the id stays in the
 * event's details to copy.
 */
function eventRecord(
  event: Event,
  lists: { members?: Listed<Member>; keys?: Listed<ApiKey>; organization?: string },
): EventRecord {
  const { type, id } = event.resource;
  const kind = KIND_WORDS[type] ?? type;
  const payload = (event.data ?? {}) as Payload;
  switch (type) {
    case 'user': {
      const member = lists.members?.rows.find((m) => m.userId === id);
      if (member)
        return { kind, name: member.name ?? member.email ?? 'a member without a name', link: '/members' };
      return { kind, name: lists.members?.complete ? 'a removed person' : 'a person', link: null };
    }
    case 'apiKey': {
      const key = lists.keys?.rows.find((k) => k.id === id);
      const name = key?.name ?? payload.apiKey?.name;
      if (name) return { kind, name, link: '/keys' };
      if (key) return { kind, name: 'an unnamed API key', link: '/keys' };
      return { kind, name: lists.keys?.complete ? 'an API key no longer listed' : 'an API key', link: null };
    }
    case 'expert':
      return { kind, name: id, link: GONE.has(event.type) ? null : expertPath(id) };
    case 'mcp_server':
      return { kind, name: id, link: null };
    case 'connection':
      return {
        kind,
        name: payload.connection?.presetKey ? `a ${payload.connection.presetKey} connection` : 'a connection',
        link: '/connections',
      };
    case 'webhookEndpoint':
      return {
        kind,
        name: payload.webhookEndpoint?.url ?? 'an endpoint',
        link: `/developers/webhooks/${encodeURIComponent(id)}`,
      };
    case 'domain':
      return { kind, name: payload.domain?.domain ?? 'a domain', link: '/settings' };
    case 'subscription':
      return { kind, name: 'your plan', link: '/billing' };
    case 'organization':
      return { kind, name: lists.organization ?? 'your organization', link: '/settings' };
    default:
      return { kind, name: 'a record', link: null };
  }
}

/**
 * The lists the Events page names records from: one members and one keys query per page view, cached by
 * react-query (a person or key named nowhere in a complete list was removed).
 */
export function useEventRecords(enabled: boolean) {
  const session = useSession();
  const org = session.data?.organization.slug ?? '';
  const members = useQuery({
    queryKey: ['event-members', org],
    enabled: enabled && Boolean(org),
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v1/organizations/{org}/members', {
          params: { path: { org }, query: { limit: 100 } },
        }),
      ),
    staleTime: 60_000,
  });
  const keys = useQuery({
    queryKey: ['event-api-keys'],
    enabled,
    queryFn: async ({ signal }) =>
      unwrap(await api.GET('/api/v1/api-keys', { params: { query: { limit: 100 } }, signal })),
    staleTime: 60_000,
  });
  const lists = {
    ...(members.data
      ? { members: { rows: members.data.data, complete: !members.data.pagination.hasMore } }
      : {}),
    ...(keys.data ? { keys: { rows: keys.data.apiKeys, complete: !keys.data.pagination.hasMore } } : {}),
    ...(session.data ? { organization: session.data.organization.name } : {}),
  };
  return (event: Event) => eventRecord(event, lists);
}

/** What an event is on: its kind in words, then the record by name, linked where the console shows it. */
export function RecordName({ record }: { record: EventRecord }) {
  return (
    <>
      <span className="muted">{record.kind}</span>{' '}
      <span className="record-name">
        {record.link ? <Link to={record.link}>{record.name}</Link> : record.name}
      </span>
    </>
  );
}
