import { api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { formatDate } from '../format.js';
import { AddForm, Renamable } from './projects-forms.js';

type Project = components['schemas']['ProjectDetail'];

/** What a delete would take away; `run(cascade)` calls the API (docs/organization-api.md, "What a delete protects"). */
export interface Removal {
  what: string;
  name: string;
  run: (cascade: boolean) => Promise<unknown>;
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

/** One project: its name, environments and agents, each renamable and deletable by those who may edit. */
export function ProjectCard(props: {
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
