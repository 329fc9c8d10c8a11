import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { PERMISSIONS } from '../../../src/modules/auth/grants.js';
import { api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { CopyButton } from '../components/CopyButton.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageSkeleton } from '../components/PageSkeleton.js';
import { useMe } from '../session.js';
import { PERMISSION_WORDS } from '../words.js';

type CreateInput = components['schemas']['CreateApiKeyRequestInput'];
type OrganizationPermission = Extract<
  components['schemas']['Grant'],
  { type: 'organization' }
>['permissions'][number];

// Every permission may be granted organization-wide (src/modules/auth/grants.ts is the one list).
const ORGANIZATION_PERMISSIONS: readonly OrganizationPermission[] = PERMISSIONS;
/** What a project or environment grant may carry. */
const SCOPED_PERMISSIONS = ['projects:operate', 'projects:read', 'agents:run'] as const;
const VARIANTS = {
  organization: 'The whole organization',
  project: 'Some projects',
  environment: 'Some environments',
  agent: 'Some agents',
} as const;
/** What an agent grant may carry (docs/api-keys.md). */
const AGENT_PERMISSIONS = ['agents:run'] as const;
const TARGET_WORDS = { project: 'Projects', environment: 'Environments', agent: 'Agents' } as const;
type Variant = keyof typeof VARIANTS;

const EXPIRY = {
  never: 'Never',
  '7': 'In 7 days',
  '30': 'In 30 days',
  '90': 'In 90 days',
  date: 'On a date',
} as const;
type Expiry = keyof typeof EXPIRY;
const DAY_S = 86_400;

/** Builds a key: a name, the rights (every permission, or the ones ticked), an expiry; shows the secret once. */
export function CreateKeyForm({ onDone }: { onDone: () => void }) {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [everything, setEverything] = useState(false);
  const [variant, setVariant] = useState<Variant>('organization');
  const [permissions, setPermissions] = useState<OrganizationPermission[]>(['api-keys:read']);
  const [targets, setTargets] = useState<string[]>([]);
  const me = useMe();
  const projects = useQuery({
    queryKey: ['projects'],
    enabled: variant !== 'organization',
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/projects', { params: { query: { limit: 100 } } })).data,
  });
  // Only what the person's role allows is offered: a key never has more rights than its user.
  const allowed = (permission: string) => me.data?.permissions.includes(permission as never) ?? false;
  const offered = (
    variant === 'organization'
      ? ORGANIZATION_PERMISSIONS
      : variant === 'agent'
        ? AGENT_PERMISSIONS
        : SCOPED_PERMISSIONS
  ).filter(allowed);
  const [expiry, setExpiry] = useState<Expiry>('90');
  const [date, setDate] = useState('');
  const create = useMutation({
    mutationFn: async (body: CreateInput) => unwrap(await api.POST('/api/v1/api-keys', { body })).data,
    onSuccess: () => client.invalidateQueries({ queryKey: ['api-keys'] }),
  });

  const chosen = permissions.filter((p) => (offered as readonly string[]).includes(p));
  const grantOf = (): CreateInput['grants'] => {
    const scoped = chosen as Array<(typeof SCOPED_PERMISSIONS)[number]>;
    if (variant === 'project') return { type: 'project', projectIds: targets, permissions: scoped };
    if (variant === 'environment')
      return { type: 'environment', environmentIds: targets, permissions: scoped };
    if (variant === 'agent') return { type: 'agent', agentIds: targets, permissions: ['agents:run'] };
    return { type: 'organization', permissions: everything ? ['*'] : chosen };
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body: CreateInput = {
      ...(name.trim() ? { name: name.trim() } : {}),
      grants: grantOf(),
      ...(expiry === 'never'
        ? {}
        : expiry === 'date'
          ? { expiresAt: new Date(`${date}T23:59:59`).toISOString() }
          : { expiresIn: Number(expiry) * DAY_S }),
    };
    create.mutate(body);
  };

  if (create.data) {
    return (
      <section className="card secret" aria-labelledby="new-key">
        <h2 id="new-key">Your new API key</h2>
        <p className="notice notice-warning" role="alert">
          Copy it now: this is the only time Cadre shows it. Cadre stores only a hash of it.
        </p>
        <div className="key-row">
          <code className="key" data-testid="new-secret">
            {create.data.key}
          </code>
          <CopyButton text={create.data.key} label="Copy key" />
        </div>
        <div className="actions">
          <button type="button" className="button button-primary" onClick={onDone}>
            I have stored it
          </button>
        </div>
      </section>
    );
  }

  const toggle = (permission: OrganizationPermission | (typeof SCOPED_PERMISSIONS)[number]) =>
    setPermissions(
      permissions.includes(permission)
        ? permissions.filter((p) => p !== permission)
        : [...permissions, permission],
    );
  return (
    <form className="card form create-key" onSubmit={submit} aria-labelledby="create-key">
      <h2 id="create-key">Create an API key</h2>
      <label htmlFor="key-name">Name</label>
      <input
        id="key-name"
        value={name}
        maxLength={200}
        placeholder="ci-deploy"
        onChange={(event) => setName(event.target.value)}
      />
      <label htmlFor="key-variant">Reaches</label>
      <select
        id="key-variant"
        value={variant}
        onChange={(event) => {
          setVariant(event.target.value as Variant);
          setTargets([]);
          setEverything(false);
        }}
      >
        {Object.entries(VARIANTS).map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
      {variant !== 'organization' && (
        <fieldset className="fieldset">
          <legend>{TARGET_WORDS[variant]}</legend>
          <ErrorNotice error={projects.error} />
          {projects.data?.length === 0 && (
            <p className="muted small">Your organization has no projects yet.</p>
          )}
          <div className="checks">
            {(projects.data ?? [])
              .flatMap((project) =>
                variant === 'project'
                  ? [{ id: project.id, label: project.name }]
                  : (variant === 'agent' ? project.agents : project.environments).map((part) => ({
                      id: part.id,
                      label: `${project.name} / ${part.name}`,
                    })),
              )
              .map((target) => (
                <label key={target.id} className="check">
                  <input
                    type="checkbox"
                    checked={targets.includes(target.id)}
                    onChange={() =>
                      setTargets(
                        targets.includes(target.id)
                          ? targets.filter((t) => t !== target.id)
                          : [...targets, target.id],
                      )
                    }
                  />
                  {target.label}
                </label>
              ))}
          </div>
        </fieldset>
      )}
      <fieldset className="fieldset">
        <legend>Rights</legend>
        {variant === 'organization' && (
          <label className="check">
            <input
              type="checkbox"
              checked={everything}
              onChange={(event) => setEverything(event.target.checked)}
            />
            Everything you may do (follows your role)
          </label>
        )}
        {!everything && !me.data && <PageSkeleton lines={2} />}
        {!everything && (
          <div className="checks">
            {offered.map((permission) => (
              <label key={permission} className="check">
                <input
                  type="checkbox"
                  checked={permissions.includes(permission)}
                  onChange={() => toggle(permission)}
                />
                {PERMISSION_WORDS[permission]} <code className="small">{permission}</code>
              </label>
            ))}
          </div>
        )}
        <p className="muted small">A key never has more rights than your role; asking for more is refused.</p>
      </fieldset>
      <label htmlFor="key-expiry">Expires</label>
      <select id="key-expiry" value={expiry} onChange={(event) => setExpiry(event.target.value as Expiry)}>
        {Object.entries(EXPIRY).map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
      {expiry === 'date' && (
        <>
          <label htmlFor="key-date">Expiry date</label>
          <input
            id="key-date"
            type="date"
            required
            value={date}
            onChange={(event) => setDate(event.target.value)}
          />
        </>
      )}
      <ErrorNotice error={create.error} />
      <div className="actions">
        <button
          type="submit"
          className="button button-primary"
          disabled={
            create.isPending ||
            (!everything && chosen.length === 0) ||
            (variant !== 'organization' && targets.length === 0)
          }
        >
          {create.isPending ? 'Creating…' : 'Create key'}
        </button>
        <button type="button" className="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
