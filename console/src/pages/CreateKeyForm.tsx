import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { CopyButton } from '../components/CopyButton.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageSkeleton } from '../components/PageSkeleton.js';
import { PERMISSION_AREAS } from '../generated/permission-areas.js';
import { useMe } from '../session.js';
import { PERMISSION_WORDS } from '../words.js';

type CreateInput = components['schemas']['CreateApiKeyRequestInput'];
type OrganizationPermission = Extract<
  components['schemas']['Grant'],
  { type: 'organization' }
>['permissions'][number];
type ScopedPermission = Extract<components['schemas']['Grant'], { type: 'project' }>['permissions'][number];

/** What a project or environment grant may carry (docs/api-keys.md); an organization grant takes any. */
const SCOPED_PERMISSIONS: readonly ScopedPermission[] = [
  'projects:operate',
  'projects:read',
  'projects:write',
  'agents:run',
];
const VARIANTS = {
  organization: 'The whole organization',
  project: 'Some projects',
  environment: 'Some environments',
  agent: 'Some agents',
} as const;
/** What an agent grant may carry (docs/api-keys.md). */
const AGENT_PERMISSIONS: readonly ScopedPermission[] = ['agents:run'];
const NO_ACCESS = 'none';
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

/**
 * Builds a key: a name, where it reaches, its rights (everything the role allows, or a level per area as
 * fine-grained tokens offer them), an expiry; shows the secret once. Only levels the person's role and the
 * grant's variant allow are offered (the server's permission areas, console/src/generated/), so the form never asks for a
 * permission the server would refuse.
 */
/** The form's first field, then the new secret's heading, take focus as they appear (a ref callback). */
const focusOnMount = (node: HTMLElement | null) => node?.focus();

export function CreateKeyForm({ onDone }: { onDone: () => void }) {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [everything, setEverything] = useState(false);
  const [variant, setVariant] = useState<Variant>('organization');
  // The level chosen per area; a new key starts with reading the API keys, the least a key is useful for.
  const [levels, setLevels] = useState<Record<string, string>>({ 'api-keys': 'read' });
  const [targets, setTargets] = useState<string[]>([]);
  const me = useMe();
  const projects = useQuery({
    queryKey: ['projects'],
    enabled: variant !== 'organization',
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/projects', { params: { query: { limit: 100 } } })).data,
  });
  // Only what the person's role allows, within what the variant carries: a key never has more rights than its user.
  const allowed = new Set<string>(
    (me.data?.permissions ?? []).filter(
      (permission) =>
        variant === 'organization' ||
        (variant === 'agent' ? AGENT_PERMISSIONS : SCOPED_PERMISSIONS).includes(permission as never),
    ),
  );
  // A level is offered when all it gives is allowed; an area with none is not offered at all.
  const areas = PERMISSION_AREAS.map((area) => ({
    area,
    offered: area.levels.filter((level) => level.permissions.every((p) => allowed.has(p))),
  })).filter(({ offered }) => offered.length > 0);
  const [expiry, setExpiry] = useState<Expiry>('90');
  const [date, setDate] = useState('');
  const create = useMutation({
    mutationFn: async (body: CreateInput) => unwrap(await api.POST('/api/v1/api-keys', { body })).data,
    onSuccess: () => client.invalidateQueries({ queryKey: ['api-keys'] }),
  });

  const chosen = areas.flatMap(
    ({ area, offered }) => offered.find((level) => level.id === levels[area.id])?.permissions ?? [],
  ) as OrganizationPermission[];
  const grantOf = (): CreateInput['grants'] => {
    const scoped = chosen as ScopedPermission[];
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
        <h2 id="new-key" tabIndex={-1} ref={focusOnMount}>
          Your new API key
        </h2>
        <p className="notice notice-warning" role="alert">
          Copy it now: this is the only time Cadre shows it. Cadre stores only a hash of it.
        </p>
        <div className="key-row">
          <code className="key" data-testid="new-secret">
            {create.data.key}
          </code>
          <CopyButton text={create.data.key} label="Copy API key" />
        </div>
        <div className="actions">
          <button type="button" className="button button-primary" onClick={onDone}>
            I have stored it
          </button>
        </div>
      </section>
    );
  }

  return (
    <form className="card form create-key" onSubmit={submit} aria-labelledby="create-key">
      <h2 id="create-key">Create an API key</h2>
      <label htmlFor="key-name">Name</label>
      <input
        id="key-name"
        ref={focusOnMount}
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
            Everything your role allows ({me.data?.role ?? '…'}), now and later
          </label>
        )}
        {!everything && !me.data && <PageSkeleton lines={2} />}
        {!everything && (
          <div className="permission-areas">
            {areas.map(({ area, offered }) => {
              const chosenLevel = offered.find((l) => l.id === levels[area.id]);
              const level = chosenLevel?.id ?? NO_ACCESS;
              return (
                <div key={area.id} className="permission-area">
                  <label htmlFor={`area-${area.id}`}>{area.name}</label>
                  <select
                    id={`area-${area.id}`}
                    value={level}
                    aria-describedby={`area-${area.id}-words`}
                    onChange={(event) => setLevels({ ...levels, [area.id]: event.target.value })}
                  >
                    <option value={NO_ACCESS}>No access</option>
                    {offered.map((l) => (
                      <option key={l.id} value={l.id}>
                        {l.name}
                      </option>
                    ))}
                  </select>
                  <span id={`area-${area.id}-words`} className="muted small">
                    {chosenLevel
                      ? chosenLevel.permissions.map((p) => PERMISSION_WORDS[p]).join(', ')
                      : 'nothing'}
                  </span>
                </div>
              );
            })}
          </div>
        )}
        <p className="muted small">
          Only what your role may grant is offered; a key never has more rights than your role.
        </p>
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
