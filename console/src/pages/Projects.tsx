import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useRef, useState } from 'react';
import { ApiProblem, api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageHeader } from '../components/PageHeader.js';
import { PageSkeleton } from '../components/PageSkeleton.js';
import { formatDate } from '../format.js';
import { useMe } from '../session.js';

type Project = components['schemas']['ProjectDetail'];

/** What a delete would take away; `run(cascade)` calls the API (docs/organization-api.md, "What a delete protects"). */
interface Removal {
  what: string;
  name: string;
  run: (cascade: boolean) => Promise<unknown>;
}

/** The 409's blockers in words: each detail's message ("oidc alice (production)", a key's name). */
function blockersOf(problem: ApiProblem) {
  const connections = problem.details.filter((d) => d.path.startsWith('connections.'));
  const keys = problem.details.filter((d) => d.path.startsWith('apiKeys.'));
  return { connections, keys };
}

function cascadeLabel(blocked: ReturnType<typeof blockersOf>): string {
  if (blocked.connections.length && blocked.keys.length) return 'Disconnect, revoke and delete';
  return blocked.connections.length ? 'Disconnect and delete' : 'Revoke and delete';
}

function cascadeWords(blocked: ReturnType<typeof blockersOf>): string {
  const parts = [];
  if (blocked.connections.length)
    parts.push('disconnects those accounts (their tokens are revoked at the provider)');
  if (blocked.keys.length) parts.push('revokes those API keys');
  return parts.join(' and ');
}

/** A name with a Rename button that turns into a one-field form. */
function Renamable(props: {
  label: string;
  value: string;
  canEdit: boolean;
  onSave: (value: string) => Promise<unknown>;
  children: React.ReactNode;
}) {
  const id = useId();
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(props.value);
  const save = useMutation({
    mutationFn: props.onSave,
    onSuccess: () => setEditing(false),
  });
  if (!editing) {
    return (
      <div className="row space-between">
        {props.children}
        {props.canEdit && (
          <button
            type="button"
            className="button button-small"
            aria-label={`Rename ${props.value}`}
            onClick={() => {
              setDraft(props.value);
              save.reset();
              setEditing(true);
            }}
          >
            Rename
          </button>
        )}
      </div>
    );
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(draft.trim());
  };
  // The name stays (a section keeps its heading, so its label) with the form under it.
  return (
    <div>
      {props.children}
      <form className="filters" onSubmit={submit}>
        <div className="field grow">
          <label htmlFor={id}>{props.label}</label>
          <input id={id} value={draft} onChange={(e) => setDraft(e.target.value)} required />
        </div>
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          Save
        </button>
        <button type="button" className="button" onClick={() => setEditing(false)}>
          Cancel
        </button>
        <ErrorNotice error={save.error} />
      </form>
    </div>
  );
}

/** The first field of a form opened on request takes focus as it appears (a ref callback). */
const focusOnMount = (node: HTMLElement | null) => node?.focus();

/**
 * A one-field "add" form (an environment, an agent), closed until asked for: a button opens it with its
 * field focused; Add or Cancel closes it and focus returns to the button.
 */
function AddForm(props: {
  label: string;
  hint: string;
  opener: string;
  onAdd: (value: string) => Promise<unknown>;
}) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [value, setValue] = useState('');
  const opener = useRef<HTMLButtonElement>(null);
  const close = () => {
    setOpen(false);
    setValue('');
    // The button is back once the form is gone.
    requestAnimationFrame(() => opener.current?.focus());
  };
  const add = useMutation({ mutationFn: props.onAdd, onSuccess: close });
  if (!open) {
    return (
      <button
        type="button"
        className="button button-small"
        ref={opener}
        onClick={() => {
          add.reset();
          setOpen(true);
        }}
      >
        {props.opener}
      </button>
    );
  }
  return (
    <form
      className="filters"
      onSubmit={(event) => {
        event.preventDefault();
        add.mutate(value.trim());
      }}
    >
      <div className="field grow">
        <label htmlFor={id}>{props.label}</label>
        <input
          id={id}
          ref={focusOnMount}
          value={value}
          onChange={(e) => setValue(e.target.value)}
          placeholder={props.hint}
          required
        />
      </div>
      <button type="submit" className="button button-primary" disabled={add.isPending}>
        Add
      </button>
      <button type="button" className="button" onClick={close}>
        Cancel
      </button>
      <ErrorNotice error={add.error} />
    </form>
  );
}

/** A project's environments or agents: each renamable and deletable, and a form to add one. */
function ProjectParts(props: {
  title: string;
  what: 'environment' | 'agent';
  empty: string;
  hint: string;
  items: ReadonlyArray<{ id: string; name: string }>;
  projectName: string;
  canEdit: boolean;
  onRemove: (removal: Removal) => void;
  rename: (id: string, name: string) => Promise<unknown>;
  remove: (id: string, cascade: boolean) => Promise<unknown>;
  add: (name: string) => Promise<unknown>;
}) {
  const { what, canEdit } = props;
  const label = what === 'environment' ? 'Environment' : 'Agent';
  return (
    <>
      <h3>{props.title}</h3>
      {props.items.length === 0 && <p className="muted">{props.empty}</p>}
      <ul className="connections" aria-label={`${props.title} of ${props.projectName}`}>
        {props.items.map((item) => (
          <li key={item.id}>
            <Renamable
              label={`${label} name`}
              value={item.name}
              canEdit={canEdit}
              onSave={(name) => props.rename(item.id, name)}
            >
              <strong>{item.name}</strong>
            </Renamable>
            {canEdit && (
              <button
                type="button"
                className="button button-small button-danger-outline"
                aria-label={`Delete ${what} ${item.name}`}
                onClick={() =>
                  props.onRemove({ what, name: item.name, run: (cascade) => props.remove(item.id, cascade) })
                }
              >
                Delete…
              </button>
            )}
          </li>
        ))}
      </ul>
      {canEdit && (
        <AddForm
          label={`New ${what}`}
          hint={props.hint}
          opener={what === 'environment' ? 'Add an environment' : 'Add an agent'}
          onAdd={props.add}
        />
      )}
    </>
  );
}

function ProjectCard(props: {
  project: Project;
  canEdit: boolean;
  refresh: () => Promise<unknown>;
  onRemove: (removal: Removal) => void;
}) {
  const { project, canEdit, refresh, onRemove } = props;
  const projectId = project.id;
  const after = async <T,>(promise: Promise<T>) => {
    const result = await promise;
    await refresh();
    return result;
  };
  return (
    <section className="card project" aria-labelledby={`project-${projectId}`}>
      <Renamable
        label="Project name"
        value={project.name}
        canEdit={canEdit}
        onSave={(name) =>
          after(
            api
              .PATCH('/api/v1/projects/{projectId}', { params: { path: { projectId } }, body: { name } })
              .then(unwrap),
          )
        }
      >
        <div>
          <h2 id={`project-${projectId}`}>{project.name}</h2>
          <p className="small muted">
            <code>{project.slug}</code> · created {formatDate(project.createdAt)}
          </p>
        </div>
      </Renamable>

      <ProjectParts
        title="Environments"
        what="environment"
        empty="No environments."
        hint="staging"
        items={project.environments}
        projectName={project.name}
        canEdit={canEdit}
        onRemove={onRemove}
        rename={(environmentId, name) =>
          after(
            api
              .PATCH('/api/v1/projects/{projectId}/environments/{environmentId}', {
                params: { path: { projectId, environmentId } },
                body: { name },
              })
              .then(unwrap),
          )
        }
        remove={(environmentId, cascade) =>
          api
            .DELETE('/api/v1/projects/{projectId}/environments/{environmentId}', {
              params: { path: { projectId, environmentId }, query: cascade ? { cascade: 'true' } : {} },
            })
            .then(unwrap)
        }
        add={(name) =>
          after(
            api
              .POST('/api/v1/projects/{projectId}/environments', {
                params: { path: { projectId } },
                body: { name },
              })
              .then(unwrap),
          )
        }
      />
      <ProjectParts
        title="Agents"
        what="agent"
        empty="No agents yet."
        hint="triage"
        items={project.agents}
        projectName={project.name}
        canEdit={canEdit}
        onRemove={onRemove}
        rename={(agentId, name) =>
          after(
            api
              .PATCH('/api/v1/projects/{projectId}/agents/{agentId}', {
                params: { path: { projectId, agentId } },
                body: { name },
              })
              .then(unwrap),
          )
        }
        remove={(agentId, cascade) =>
          api
            .DELETE('/api/v1/projects/{projectId}/agents/{agentId}', {
              params: { path: { projectId, agentId }, query: cascade ? { cascade: 'true' } : {} },
            })
            .then(unwrap)
        }
        add={(name) =>
          after(
            api
              .POST('/api/v1/projects/{projectId}/agents', {
                params: { path: { projectId } },
                body: { name },
              })
              .then(unwrap),
          )
        }
      />

      {canEdit && (
        <div className="actions">
          <button
            type="button"
            className="button button-danger-outline"
            onClick={() =>
              onRemove({
                what: 'project',
                name: project.name,
                run: (cascade) =>
                  api
                    .DELETE('/api/v1/projects/{projectId}', {
                      params: { path: { projectId }, query: cascade ? { cascade: 'true' } : {} },
                    })
                    .then(unwrap),
              })
            }
          >
            Delete project…
          </button>
        </div>
      )}
    </section>
  );
}

function CreateProject(props: { onCreated: () => Promise<unknown>; onClose: () => void }) {
  const [draft, setDraft] = useState({ name: '', slug: '' });
  const create = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/projects', { body: { name: draft.name.trim(), slug: draft.slug.trim() } }),
      ),
    onSuccess: async () => {
      await props.onCreated();
      props.onClose();
    },
  });
  return (
    <form
      className="card filters"
      aria-label="Create a project"
      onSubmit={(event) => {
        event.preventDefault();
        create.mutate();
      }}
    >
      <div className="field grow">
        <label htmlFor="project-name">Project name</label>
        <input
          id="project-name"
          ref={focusOnMount}
          value={draft.name}
          onChange={(e) => setDraft({ ...draft, name: e.target.value })}
          required
        />
      </div>
      <div className="field grow">
        <label htmlFor="project-slug">Slug (lowercase letters, digits, - and _)</label>
        <input
          id="project-slug"
          value={draft.slug}
          onChange={(e) => setDraft({ ...draft, slug: e.target.value })}
          pattern="[a-z0-9][a-z0-9_\-]*"
          required
        />
      </div>
      <button type="submit" className="button button-primary" disabled={create.isPending}>
        Create project
      </button>
      <button type="button" className="button" onClick={props.onClose}>
        Cancel
      </button>
      <ErrorNotice error={create.error} />
    </form>
  );
}

/** Projects with their environments and agents; those with projects:write create, rename and delete them. */
export function Projects() {
  const client = useQueryClient();
  const me = useMe();
  const canEdit = me.data?.permissions.includes('projects:write') ?? false;
  const [removal, setRemoval] = useState<Removal | null>(null);
  // The create form is closed until asked for (so is each project's add forms).
  const [creating, setCreating] = useState(false);
  const createButton = useRef<HTMLButtonElement>(null);
  const projects = useQuery({
    queryKey: ['projects'],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/projects', { params: { query: { limit: 100 } } })).data,
  });
  const refresh = () => client.invalidateQueries({ queryKey: ['projects'] });
  const remove = useMutation({
    mutationFn: async ({ removal: r, cascade }: { removal: Removal; cascade: boolean }) => r.run(cascade),
    onSuccess: async () => {
      setRemoval(null);
      await Promise.all([refresh(), client.invalidateQueries({ queryKey: ['connections'] })]);
    },
  });
  const blocked =
    remove.error instanceof ApiProblem && remove.error.status === 409 ? blockersOf(remove.error) : null;
  const open = (next: Removal) => {
    remove.reset();
    setRemoval(next);
  };
  return (
    <section className="page">
      <PageHeader
        title="Projects"
        action={
          canEdit &&
          !creating && (
            <button
              type="button"
              className="button button-primary"
              ref={createButton}
              onClick={() => setCreating(true)}
            >
              Create a project
            </button>
          )
        }
      >
        Each project has environments (where connections live) and agents.
        {me.data && !canEdit && ' Your role can see them; owners and admins change them.'}
      </PageHeader>
      {canEdit && creating && (
        <CreateProject
          onCreated={refresh}
          onClose={() => {
            setCreating(false);
            // The button is back once the form is gone.
            requestAnimationFrame(() => createButton.current?.focus());
          }}
        />
      )}
      <ErrorNotice error={projects.error} />
      {projects.isPending && <PageSkeleton />}
      {projects.data?.length === 0 && (
        <div className="empty card">
          <p>Your organization has no projects yet.</p>
        </div>
      )}
      {projects.data?.map((project) => (
        <ProjectCard key={project.id} project={project} canEdit={canEdit} refresh={refresh} onRemove={open} />
      ))}
      <ConfirmDialog
        open={removal !== null}
        title={`Delete ${removal?.what ?? ''} ${removal?.name ?? ''}?`}
        confirmLabel={blocked ? cascadeLabel(blocked) : 'Delete'}
        danger
        busy={remove.isPending}
        onConfirm={() => removal && remove.mutate({ removal, cascade: blocked !== null })}
        onCancel={() => setRemoval(null)}
      >
        {blocked ? (
          <div role="alert">
            <p>
              {removal?.name} is still in use
              {blocked.connections.length > 0 &&
                ` by ${blocked.connections.length} connection${blocked.connections.length === 1 ? '' : 's'}`}
              {blocked.connections.length > 0 && blocked.keys.length > 0 && ' and'}
              {blocked.keys.length > 0 &&
                ` by ${blocked.keys.length} API key${blocked.keys.length === 1 ? '' : 's'}`}
              :
            </p>
            <ul>
              {blocked.connections.map((d) => (
                <li key={d.path}>Connection: {d.message}</li>
              ))}
              {blocked.keys.map((d) => (
                <li key={d.path}>API key: {d.message}</li>
              ))}
            </ul>
            <p>Deleting it anyway {cascadeWords(blocked)}, at once. Each is recorded in the audit log.</p>
          </div>
        ) : (
          <>
            <p>
              {removal?.what === 'project'
                ? 'Its environments and agents are deleted with it.'
                : 'This cannot be undone.'}
            </p>
            <ErrorNotice error={remove.error} />
          </>
        )}
      </ConfirmDialog>
    </section>
  );
}
