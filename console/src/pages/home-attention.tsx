import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageSkeleton } from '../components/PageSkeleton.js';
import { When } from '../components/When.js';
import { useCan, useMe, useSession } from '../session.js';
import { USAGE_WORDS } from '../words.js';
import { useBilling } from './billing-queries.js';

/** Keys expiring within this many days are worth a look on Home. */
const EXPIRING_DAYS = 14;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A plan's counter from this share of its limit on is worth a look (the usage bars warn from it too). */
const NEAR_LIMIT = 0.8;

interface Item {
  key: string;
  text: ReactNode;
  /** Where it is handled; none when this person cannot handle it and the action says who can. */
  to?: string;
  action: ReactNode;
  /** Something already refused (a limit reached), not only coming: marked as the usage bars mark it. */
  blocking?: boolean;
}

/**
 * What needs this person's attention, each linking to where it is handled, and only what their role lets
 * them act on: versions waiting for their approval (not their own, which others approve), failing webhook
 * endpoints, their own API keys expiring within 14 days, pending invitations, and the plan's limits near or
 * at their bound with what lifts them: Upgrade for those who may change the plan, the owner to ask for others.
 */
export function NeedsAttention() {
  const can = useCan();
  const me = useMe();
  const session = useSession();
  const org = session.data?.organization.slug ?? '';
  const userId = session.data?.user.id;
  const ready = me.isSuccess;

  const approvals = useQuery({
    queryKey: ['approvals', 'pending'],
    enabled: ready && can('experts:approve'),
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/v1/registry/approvals', { params: { query: { status: 'pending' } }, signal }),
      ).data.approvals,
  });
  const endpoints = useQuery({
    queryKey: ['webhook-endpoints'],
    enabled: ready && can('webhooks:manage'),
    queryFn: async ({ signal }) => unwrap(await api.GET('/api/v1/webhook-endpoints', { signal })).data,
  });
  const keys = useQuery({
    queryKey: ['api-keys', 'home'],
    enabled: ready && can('api-keys:read'),
    queryFn: async ({ signal }) =>
      unwrap(await api.GET('/api/v1/api-keys', { params: { query: { limit: 100 } }, signal })).apiKeys,
  });
  const invitations = useQuery({
    queryKey: ['invitations', org],
    enabled: ready && Boolean(org) && can('members:manage'),
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/v1/organizations/{org}/invitations', {
          params: { path: { org }, query: { limit: 100 } },
          signal,
        }),
      ),
  });
  const { usage } = useBilling(ready && can('billing:read') ? org : '');
  const manageBilling = can('billing:manage');
  // Who to ask when the plan is the person's limit: the owner, by name (everyone may list the members).
  const owners = useQuery({
    queryKey: ['members', org, 'owners'],
    enabled: ready && Boolean(org) && !manageBilling && can('members:read'),
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/v1/organizations/{org}/members', {
          params: { path: { org }, query: { limit: 100 } },
          signal,
        }),
      ).data.filter((member) => member.role === 'owner'),
  });
  // The usage's own failure is said once, on the plan card beside this list.
  const queries = [approvals, endpoints, keys, invitations, owners];
  const loading = !ready || [...queries, usage].some((query) => query.isLoading);

  const items: Item[] = [];
  for (const approval of approvals.data ?? []) {
    // The publisher never approves their own version: it waits for someone else's approval.
    if (approval.requestedBy.userId === userId) continue;
    items.push({
      key: `approval:${approval.id}`,
      text: (
        <>
          <strong>{approval.key}</strong> waits for your approval: it widens access.
        </>
      ),
      to: '/publishing',
      action: 'Review it',
    });
  }
  for (const endpoint of endpoints.data ?? []) {
    const name = endpoint.description || new URL(endpoint.url).host;
    if (endpoint.enabled && endpoint.failingSince) {
      items.push({
        key: `endpoint:${endpoint.id}`,
        text: (
          <>
            Webhook endpoint <strong>{name}</strong>: deliveries failing since{' '}
            <When at={endpoint.failingSince} />.
          </>
        ),
        to: `/developers/webhooks/${endpoint.id}`,
        action: 'See its deliveries',
      });
    } else if (!endpoint.enabled && endpoint.disabledReason) {
      items.push({
        key: `endpoint:${endpoint.id}`,
        text: (
          <>
            Webhook endpoint <strong>{name}</strong> was disabled by Cadre after failing deliveries.
          </>
        ),
        to: `/developers/webhooks/${endpoint.id}`,
        action: 'See it',
      });
    }
  }
  const now = Date.now();
  for (const key of keys.data ?? []) {
    // The key's holder replaces it: an owner is not told about each member's keys.
    if (key.userId !== userId || key.revokedAt || !key.expiresAt) continue;
    const left = Date.parse(key.expiresAt) - now;
    if (left <= 0 || left > EXPIRING_DAYS * DAY_MS) continue;
    items.push({
      key: `key:${key.id}`,
      text: (
        <>
          API key <strong>{key.name ?? key.start}</strong> expires <When at={key.expiresAt} />.
        </>
      ),
      to: '/keys',
      action: 'Replace it',
    });
  }
  const pending = (invitations.data?.data ?? []).filter((invitation) => invitation.state === 'pending');
  if (pending.length > 0) {
    items.push({
      key: 'invitations',
      text:
        pending.length === 1 ? (
          <>
            <strong>{pending[0]?.email}</strong> has not accepted the invitation yet.
          </>
        ) : (
          <>
            <strong>{pending.length} invitations</strong> wait to be accepted.
          </>
        ),
      to: '/members',
      action: 'See invitations',
    });
  }

  for (const counter of usage.data?.counters ?? []) {
    if (counter.limit === null || counter.limit <= 0 || counter.used < counter.limit * NEAR_LIMIT) continue;
    const what = USAGE_WORDS[counter.key] ?? counter.key;
    const ofLimit = `${counter.used.toLocaleString()} of ${counter.limit.toLocaleString()}`;
    items.push({
      key: `limit:${counter.key}`,
      blocking: counter.used >= counter.limit,
      text:
        counter.used >= counter.limit ? (
          <>
            <strong>{what}</strong>: the plan's limit is reached ({ofLimit}), so new ones are refused.
          </>
        ) : (
          <>
            <strong>{what}</strong>: {ofLimit} used, close to the plan's limit.
          </>
        ),
      ...(manageBilling
        ? { to: '/billing', action: 'Upgrade' }
        : { action: <AskAnOwner owners={(owners.data ?? []).map((owner) => owner.name)} /> }),
    });
  }

  return (
    <section aria-labelledby="attention" aria-busy={loading}>
      <h2 id="attention">Needs attention</h2>
      {queries.map((query, index) => (
        // One notice per failed source, in a fixed order.
        // biome-ignore lint/suspicious/noArrayIndexKey: the queries never reorder
        <ErrorNotice key={index} error={query.error} retry={query.refetch} />
      ))}
      {loading ? (
        <PageSkeleton lines={2} />
      ) : items.length === 0 ? (
        <p className="card attention-empty">
          Nothing needs your attention. Versions waiting for your approval, failing webhook endpoints, keys
          about to expire, invitations not yet accepted and plan limits close to their bound show here.
        </p>
      ) : (
        <ul className="attention-list">
          {items.map((item) => (
            <li key={item.key} className={item.blocking ? 'card attention-blocking' : 'card'}>
              <span>{item.text}</span>{' '}
              {item.to ? <Link to={item.to}>{item.action}</Link> : <span>{item.action}</span>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** For those who may not change the plan: the owners to ask, by name (those who set one). */
function AskAnOwner({ owners }: { owners: Array<string | null> }) {
  const named = owners.filter((name): name is string => Boolean(name));
  return (
    <>
      Ask an owner
      {named.length > 0 ? (
        <>
          {' '}
          (<strong>{named.join(', ')}</strong>)
        </>
      ) : (
        ''
      )}{' '}
      to upgrade the plan.
    </>
  );
}
