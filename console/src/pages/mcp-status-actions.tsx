import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { OFFICIAL } from './mcp-version-cells.js';

type ServerEntry = components['schemas']['McpServerResponse'];
type Status = components['schemas']['McpStatusChange']['status'];

/** A status change a person asked for: which version, to what. */
export interface StatusRequest {
  version: string;
  to: Status;
}

/** The buttons of a version's row: what its status may change to (docs/mcp-registry.md "Versions, latest and status"). */
export function StatusButtons({
  entry,
  onRequest,
}: {
  entry: ServerEntry;
  onRequest: (request: StatusRequest) => void;
}) {
  const { version } = entry.server;
  const status = entry._meta[OFFICIAL].status;
  const ask = (to: Status) => () => onRequest({ version, to });
  return (
    <div className="actions wrap">
      {status === 'active' && (
        <button type="button" className="button button-small" onClick={ask('deprecated')}>
          Deprecate {version}…
        </button>
      )}
      {status !== 'active' && (
        <button type="button" className="button button-small" onClick={ask('active')}>
          {status === 'deleted' ? `Restore ${version}…` : `Make ${version} active…`}
        </button>
      )}
      {status !== 'deleted' && (
        <button type="button" className="button button-small button-danger-outline" onClick={ask('deleted')}>
          Delete {version}…
        </button>
      )}
    </div>
  );
}

const TITLES: Record<Status, string> = {
  deprecated: 'Deprecate',
  active: 'Make active',
  deleted: 'Delete',
};

const CONSEQUENCES: Record<Status, string> = {
  deprecated:
    'IDEs keep listing it, marked deprecated with your message; under the catalog rule of the publish policy, no Expert version can be published with it any more. Make it active again at any time.',
  active: 'IDEs list it as an ordinary version again, and it may take latest back if it is the newest.',
  deleted:
    'It leaves every list and read of the catalog (mirrors see it as deleted), latest moves to the newest version left, and under the catalog rule no Expert version can be published with it. Restore it at any time.',
};

/**
 * Asks before a version's status changes, in the shared confirmation (a deprecation with its message), and
 * sends the change to the management API (mcp:write). A refusal is said inside the dialog; either way the
 * page's versions and the catalog's list are read again.
 */
export function StatusDialog({
  name,
  request,
  onClose,
  onChanged,
}: {
  name: string;
  request: StatusRequest | undefined;
  onClose: () => void;
  onChanged: (words: string) => void;
}) {
  const client = useQueryClient();
  const messageId = useId();
  const [message, setMessage] = useState('');
  const change = useMutation({
    mutationFn: async ({ version, to }: StatusRequest) =>
      unwrap(
        await api.PATCH('/api/v1/mcp/servers/{serverName}/versions/{version}/status', {
          params: { path: { serverName: name, version } },
          body: {
            status: to,
            ...(to === 'deprecated' && message.trim() ? { statusMessage: message.trim() } : {}),
          },
        }),
      ).data,
    onSettled: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: ['mcp-server-versions'] }),
        client.invalidateQueries({ queryKey: ['mcp-servers'] }),
      ]),
    onSuccess: (_answer, { version, to }) => {
      close();
      onChanged(
        to === 'deprecated'
          ? `Deprecated ${version}.`
          : to === 'deleted'
            ? `Deleted ${version}: it has left the catalog's lists.`
            : `${version} is active again.`,
      );
    },
  });
  const close = () => {
    setMessage('');
    change.reset();
    onClose();
  };
  const to = request?.to ?? 'deprecated';
  return (
    <ConfirmDialog
      open={request !== undefined}
      title={`${TITLES[to]} ${name} ${request?.version ?? ''}?`}
      confirmLabel={TITLES[to]}
      danger={to === 'deleted'}
      busy={change.isPending}
      onConfirm={() => request && change.mutate(request)}
      onCancel={close}
    >
      <p>{CONSEQUENCES[to]}</p>
      {to === 'deprecated' && (
        <div className="field">
          <label htmlFor={messageId}>Message: why, and what to use instead (IDEs show it)</label>
          <textarea
            id={messageId}
            rows={3}
            maxLength={500}
            value={message}
            onChange={(event) => setMessage(event.target.value)}
          />
        </div>
      )}
      <ErrorNotice error={change.error} title="The status was not changed." />
    </ConfirmDialog>
  );
}
