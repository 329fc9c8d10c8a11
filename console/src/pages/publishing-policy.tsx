import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { ErrorNotice } from '../components/ErrorNotice.js';

type Policy = components['schemas']['PublishPolicy'];

/** A list typed one item a line or separated by commas, as the API takes it (empty: none). */
const parseList = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter(Boolean);

/**
 * What the policy does that its owners may not mean (the answer's warnings: approval required with nobody to
 * approve), after every load and every save, with the way out for those who can take it.
 */
export function PolicyWarnings({ warnings, invites }: { warnings: readonly string[]; invites: boolean }) {
  return (
    <div aria-live="polite">
      {warnings.length > 0 && (
        <div className="notice notice-warning" data-testid="policy-warnings">
          {warnings.map((warning) => (
            <p key={warning}>{warning}</p>
          ))}
          {invites && (
            <p>
              <Link to="/members">Invite an admin on the Members page</Link>
            </p>
          )}
        </div>
      )}
    </div>
  );
}

const anyOr = (list: readonly string[] | null, what: string) =>
  list === null ? `any ${what}` : list.join(', ');

export function PolicyFacts({ policy }: { policy: Policy }) {
  return (
    <dl className="facts">
      <dt>Skill commands</dt>
      <dd>{anyOr(policy.allowedCommands, 'command')}</dd>
      <dt>Package versions</dt>
      <dd>
        {policy.requirePinnedVersions ? 'must be pinned (pkg@1.2.3)' : 'any (a range or latest is accepted)'}
      </dd>
      <dt>SSE endpoint hosts</dt>
      <dd>{anyOr(policy.allowedSseHosts, 'host')}</dd>
      <dt>Wider access</dt>
      <dd>
        {policy.approvalRequiredForWidening
          ? 'a second owner or admin approves before it becomes latest'
          : 'becomes latest at once'}
      </dd>
    </dl>
  );
}

/** The policy as a form: each rule in words; "any" or a list for commands and hosts. */
export function PolicyForm({ policy, recommended }: { policy: Policy; recommended: readonly string[] }) {
  const client = useQueryClient();
  const id = useId();
  const [anyCommand, setAnyCommand] = useState(policy.allowedCommands === null);
  const [commands, setCommands] = useState((policy.allowedCommands ?? recommended).join(', '));
  const [pinned, setPinned] = useState(policy.requirePinnedVersions);
  const [anyHost, setAnyHost] = useState(policy.allowedSseHosts === null);
  const [hosts, setHosts] = useState((policy.allowedSseHosts ?? []).join('\n'));
  const [approval, setApproval] = useState(policy.approvalRequiredForWidening);
  const [fromCatalog, setFromCatalog] = useState(policy.skillsFromCatalog);
  const save = useMutation({
    mutationFn: async (body: components['schemas']['PublishPolicyChange']) =>
      unwrap(await api.PUT('/api/v1/organization/publish-policy', { body })),
    onSuccess: (answer) => client.setQueryData(['publish-policy'], answer.data),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({
      allowedCommands: anyCommand ? null : parseList(commands),
      requirePinnedVersions: pinned,
      allowedSseHosts: anyHost ? null : parseList(hosts),
      approvalRequiredForWidening: approval,
      skillsFromCatalog: fromCatalog,
    });
  };
  const applyRecommended = () => {
    setAnyCommand(false);
    setCommands(recommended.join(', '));
  };
  return (
    <form className="form policy-form" onSubmit={submit}>
      <fieldset className="fieldset">
        <legend>Commands a skill may run</legend>
        <label className="check">
          <input
            type="radio"
            name={`${id}-commands`}
            checked={anyCommand}
            onChange={() => setAnyCommand(true)}
          />
          Any command
        </label>
        <label className="check">
          <input
            type="radio"
            name={`${id}-commands`}
            checked={!anyCommand}
            onChange={() => setAnyCommand(false)}
          />
          Only these
        </label>
        <label htmlFor={`${id}-command-list`} className="visually-hidden">
          Allowed commands
        </label>
        <input
          id={`${id}-command-list`}
          value={commands}
          disabled={anyCommand}
          aria-describedby={`${id}-command-hint`}
          spellCheck={false}
          autoComplete="off"
          onChange={(event) => setCommands(event.target.value)}
        />
        <p id={`${id}-command-hint`} className="small muted">
          Separated by commas. The recommended preset is {recommended.join(' and ')}: package runners whose
          packages can be pinned, and what Perstack's own registry accepts.
        </p>
        <button type="button" className="button button-small" onClick={applyRecommended}>
          Use the recommended preset
        </button>
      </fieldset>
      <fieldset className="fieldset">
        <legend>Package versions</legend>
        <label className="check">
          <input type="checkbox" checked={pinned} onChange={(event) => setPinned(event.target.checked)} />
          <span>
            npx and uvx packages must be pinned to an exact version (<code>pkg@1.2.3</code>, not a range or{' '}
            <code>@latest</code>)
          </span>
        </label>
      </fieldset>
      <fieldset className="fieldset">
        <legend>Hosts an SSE skill may reach</legend>
        <label className="check">
          <input type="radio" name={`${id}-hosts`} checked={anyHost} onChange={() => setAnyHost(true)} />
          Any host
        </label>
        <label className="check">
          <input type="radio" name={`${id}-hosts`} checked={!anyHost} onChange={() => setAnyHost(false)} />
          Only these
        </label>
        <label htmlFor={`${id}-host-list`} className="visually-hidden">
          Allowed hosts
        </label>
        <textarea
          id={`${id}-host-list`}
          rows={3}
          value={hosts}
          disabled={anyHost}
          aria-describedby={`${id}-host-hint`}
          spellCheck={false}
          onChange={(event) => setHosts(event.target.value)}
        />
        <p id={`${id}-host-hint`} className="small muted">
          One per line: <code>mcp.example.com</code>, or <code>*.example.com</code> for its subdomains.
        </p>
      </fieldset>
      <fieldset className="fieldset">
        <legend>Versions that widen access</legend>
        <label className="check">
          <input type="checkbox" checked={approval} onChange={(event) => setApproval(event.target.checked)} />
          <span>
            A version that can reach more than the latest waits for a second owner or admin to approve it
            before it becomes latest
          </span>
        </label>
      </fieldset>
      <fieldset className="fieldset">
        <legend>Where MCP skills come from</legend>
        <label className="check">
          <input
            type="checkbox"
            checked={fromCatalog}
            onChange={(event) => setFromCatalog(event.target.checked)}
          />
          <span>
            Every skill's package (name and exact version) and SSE endpoint must be an active server of the
            organization's MCP catalog
          </span>
        </label>
      </fieldset>
      <ErrorNotice error={save.error} title="The policy was not saved." />
      <p role="status" className="success">
        {save.isSuccess ? 'Policy saved.' : ''}
      </p>
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save policy'}
        </button>
      </div>
    </form>
  );
}
