import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { ApiProblem, api, unwrap } from '../api/client.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { PageHeader } from '../components/PageHeader.js';
import { PageSkeleton } from '../components/PageSkeleton.js';
import { useMe } from '../session.js';
import { ProjectCard, type Removal } from './projects-card.js';
import { CreateProject } from './projects-forms.js';

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
