import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiProblem, api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { CopyButton } from '../components/CopyButton.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { When } from '../components/When.js';
import { formatDateTime } from '../format.js';
import { type EventType, eventWords } from './event-words.js';
import { EventTypePicker } from './webhook-event-picker.js';

export type Endpoint = components['schemas']['WebhookEndpoint'];

/** What webhooks are for, said where someone first meets them (an empty list, a member's view). */
export function WebhooksExplained() {
  return (
    <p>
      A webhook endpoint is a URL of yours (a CI job, a chat bot, a deploy system) that Cadre calls when
      something changes in your organization: a version published, a key about to expire, a member joined.
      Each call is signed, so your receiver can check it came from Cadre, and retried for up to three days
      until your receiver answers.
    </p>
  );
}

/**
 * A Cadre without a key ring cannot keep signing secrets: said as the operator's setting, not "busy". The
 * API answers 503 service_unavailable naming the setting (its code alone does not tell this case apart).
 */
const notConfigured = (error: unknown) =>
  error instanceof ApiProblem && error.status === 503 && error.message.includes('CADRE_ENCRYPTION_KEYS')
    ? 'Webhooks are not set up on this Cadre yet: its operator has to set CADRE_ENCRYPTION_KEYS.'
    : undefined;

export const endpointName = (endpoint: Endpoint) => endpoint.description || new URL(endpoint.url).host;

const invalidate = (client: ReturnType<typeof useQueryClient>) =>
  Promise.all([
    client.invalidateQueries({ queryKey: ['webhook-endpoints'] }),
    client.invalidateQueries({ queryKey: ['webhook-endpoint'] }),
  ]);

/** Add an endpoint (then show its secret once), or change one's URL, description and event types. */
export function EndpointForm(props: {
  existing?: Endpoint;
  onCreated?: (created: { endpoint: Endpoint; secret: string }) => void;
  onDone: () => void;
}) {
  const client = useQueryClient();
  const { existing } = props;
  const id = existing ? `edit-${existing.id}` : 'new-endpoint';
  const [url, setUrl] = useState(existing?.url ?? '');
  const [description, setDescription] = useState(existing?.description ?? '');
  const [types, setTypes] = useState<EventType[]>((existing?.eventTypes as EventType[] | undefined) ?? []);
  const save = useMutation({
    mutationFn: async () => {
      if (existing) {
        const endpoint = unwrap(
          await api.PATCH('/api/v1/webhook-endpoints/{webhookEndpointId}', {
            params: { path: { webhookEndpointId: existing.id } },
            body: { url: url.trim(), description: description.trim(), eventTypes: types },
          }),
        ).data;
        return { endpoint, secret: undefined };
      }
      return unwrap(
        await api.POST('/api/v1/webhook-endpoints', {
          body: { url: url.trim(), description: description.trim(), eventTypes: types },
        }),
      ).data;
    },
    onSuccess: async (answer) => {
      await invalidate(client);
      if (answer.secret !== undefined)
        props.onCreated?.({ endpoint: answer.endpoint, secret: answer.secret });
      else props.onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form className="card form endpoint-form" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{existing ? `Change ${endpointName(existing)}` : 'Add an endpoint'}</h2>
      <label htmlFor={`${id}-url`}>Endpoint URL</label>
      <input
        id={`${id}-url`}
        type="url"
        required
        maxLength={2048}
        placeholder="https://ci.example.com/cadre-events"
        value={url}
        onChange={(event) => setUrl(event.target.value)}
        aria-describedby={`${id}-url-help`}
      />
      <p id={`${id}-url-help`} className="small muted">
        An https address Cadre can reach on the internet; private and local addresses are refused.
      </p>
      <label htmlFor={`${id}-description`}>Description (optional)</label>
      <input
        id={`${id}-description`}
        maxLength={500}
        placeholder="Deploys on publish"
        value={description}
        onChange={(event) => setDescription(event.target.value)}
      />
      <EventTypePicker id={id} value={types} onChange={setTypes} />
      <ErrorNotice error={save.error} title={notConfigured(save.error)} />
      <div className="actions">
        <button
          type="submit"
          className="button button-primary"
          disabled={save.isPending || types.length === 0}
        >
          {save.isPending ? 'Saving…' : existing ? 'Save changes' : 'Add endpoint'}
        </button>
        <button type="button" className="button" onClick={props.onDone}>
          Cancel
        </button>
        {types.length === 0 && <span className="small muted">Choose at least one event.</span>}
      </div>
    </form>
  );
}

/** A signing secret, shown once: after an endpoint is added or its secret rotated. */
export function SecretCard(props: {
  endpoint: Endpoint;
  secret: string;
  rotated?: boolean;
  onDone: () => void;
}) {
  const until = props.endpoint.secretRotation?.previousSecretExpiresAt;
  return (
    <section className="card secret" aria-labelledby="endpoint-secret">
      <h2 id="endpoint-secret">
        {props.rotated ? 'New signing secret' : 'Signing secret'} for {endpointName(props.endpoint)}
      </h2>
      <p className="notice notice-warning" role="alert">
        Copy it now: this is the only time Cadre shows it. Your receiver checks each delivery’s signature with
        it (the Standard Webhooks <code>webhook-signature</code> header).
      </p>
      <div className="key-row">
        <code className="key" data-testid="endpoint-secret">
          {props.secret}
        </code>
        <CopyButton text={props.secret} label="Copy secret" />
      </div>
      {props.rotated && until && (
        <p className="small">
          Until {formatDateTime(until)}, each delivery is signed with both the previous secret and this one:
          deploy this one to your receiver before then.
        </p>
      )}
      <div className="actions">
        <button type="button" className="button button-primary" onClick={props.onDone}>
          I have stored it
        </button>
      </div>
    </section>
  );
}

export function EndpointStatus({ endpoint }: { endpoint: Endpoint }) {
  // An enabled endpoint whose deliveries fail is not simply "Enabled": three days of it disable it.
  if (endpoint.enabled && endpoint.failingSince) {
    return <span className="badge badge-deprecated">Enabled, failing</span>;
  }
  if (endpoint.enabled) return <span className="badge badge-available">Enabled</span>;
  return (
    <span className="badge badge-disabled">{endpoint.disabledReason ? 'Disabled by Cadre' : 'Disabled'}</span>
  );
}

/** Why Cadre turned the endpoint off, and what brings it back. */
export function DisabledBanner(props: { endpoint: Endpoint; canManage: boolean }) {
  const { endpoint } = props;
  if (endpoint.enabled || !endpoint.disabledReason) return null;
  return (
    <div className="notice notice-warning" role="status">
      <p className="notice-title">Cadre disabled this endpoint</p>
      <p>{endpoint.disabledReason}</p>
      <p className="small">
        Nothing is sent to it while it is disabled.{' '}
        {props.canManage
          ? 'Once your receiver answers again, enable it.'
          : 'An owner or admin can enable it once the receiver answers again.'}
      </p>
    </div>
  );
}

/** Every attempt has failed for a while: Cadre keeps retrying, and disables the endpoint after three days. */
export function FailingBanner({ endpoint }: { endpoint: Endpoint }) {
  if (!endpoint.enabled || !endpoint.failingSince) return null;
  return (
    <div className="notice notice-warning" role="status">
      <p className="notice-title">
        Deliveries are failing: the first failure was <When at={endpoint.failingSince} />
      </p>
      <p className="small">
        Cadre keeps retrying each one; if the endpoint still fails three days after its first failure, Cadre
        disables it. The log below shows what it answered.
      </p>
    </div>
  );
}

type Pending = { kind: 'rotate' | 'delete'; endpoint: Endpoint };

/**
 * Edit, enable or disable, rotate the secret (asks first: the 24-hour overlap) and delete (asks first) one
 * endpoint. A rotated secret is handed to `onSecret` to be shown once.
 */
export function EndpointActions(props: {
  endpoint: Endpoint;
  onEdit: () => void;
  onSecret: (answer: { endpoint: Endpoint; secret: string }) => void;
  onDeleted?: () => void;
}) {
  const client = useQueryClient();
  const { endpoint } = props;
  const [pending, setPending] = useState<Pending | null>(null);
  const toggle = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.PATCH('/api/v1/webhook-endpoints/{webhookEndpointId}', {
          params: { path: { webhookEndpointId: endpoint.id } },
          body: { enabled: !endpoint.enabled },
        }),
      ),
    onSuccess: () => invalidate(client),
  });
  const act = useMutation({
    mutationFn: async (action: Pending) => {
      const params = { path: { webhookEndpointId: action.endpoint.id } };
      if (action.kind === 'delete') {
        unwrap(await api.DELETE('/api/v1/webhook-endpoints/{webhookEndpointId}', { params }));
        return undefined;
      }
      return unwrap(await api.POST('/api/v1/webhook-endpoints/{webhookEndpointId}/rotate-secret', { params }))
        .data;
    },
    onSuccess: async (answer) => {
      setPending(null);
      if (answer) props.onSecret(answer);
      else props.onDeleted?.();
      await invalidate(client);
    },
  });
  const name = endpointName(endpoint);
  return (
    <>
      <div className="actions wrap">
        <button type="button" className="button button-small" onClick={props.onEdit}>
          Edit
        </button>
        <button
          type="button"
          className={endpoint.enabled ? 'button button-small' : 'button button-small button-primary'}
          disabled={toggle.isPending}
          onClick={() => toggle.mutate()}
        >
          {endpoint.enabled ? 'Disable' : 'Enable'}
          <span className="visually-hidden"> {name}</span>
        </button>
        <button
          type="button"
          className="button button-small"
          onClick={() => {
            act.reset();
            setPending({ kind: 'rotate', endpoint });
          }}
        >
          Rotate secret…
        </button>
        <button
          type="button"
          className="button button-small button-danger-outline"
          onClick={() => {
            act.reset();
            setPending({ kind: 'delete', endpoint });
          }}
        >
          Delete…
        </button>
      </div>
      <ErrorNotice error={toggle.error} />
      <ConfirmDialog
        open={pending !== null}
        title={pending?.kind === 'delete' ? `Delete ${name}?` : `Rotate the signing secret of ${name}?`}
        confirmLabel={pending?.kind === 'delete' ? 'Delete the endpoint' : 'Rotate the secret'}
        danger={pending?.kind === 'delete'}
        busy={act.isPending}
        onConfirm={() => pending && act.mutate(pending)}
        onCancel={() => setPending(null)}
      >
        {pending?.kind === 'delete' ? (
          <p>
            Nothing more is sent to <span className="break-anywhere">{endpoint.url}</span>. To pause
            deliveries instead, disable it.
          </p>
        ) : (
          <>
            <p>Cadre makes a new secret and shows it once.</p>
            <p>
              For the next 24 hours each delivery is signed with both the current secret and the new one, so
              your receiver keeps accepting them while you deploy the new secret. After that, only the new one
              signs.
            </p>
          </>
        )}
        <ErrorNotice error={act.error} title={notConfigured(act.error)} />
      </ConfirmDialog>
    </>
  );
}

/** An endpoint's facts: its URL, what it receives, since when, and a rotation in progress. */
export function EndpointFacts({ endpoint }: { endpoint: Endpoint }) {
  const until = endpoint.secretRotation?.previousSecretExpiresAt;
  return (
    <>
      <p className="small break-anywhere">
        <code>{endpoint.url}</code>
      </p>
      <p className="small">
        <span className="muted">
          {endpoint.eventTypes.length} event type{endpoint.eventTypes.length === 1 ? '' : 's'}:{' '}
        </span>
        {endpoint.eventTypes.map(eventWords).join(', ')}
      </p>
      <p className="small muted">
        Added <When at={endpoint.createdAt} />
        {until && <> · the previous secret also signs until {formatDateTime(until)}</>}
      </p>
    </>
  );
}
