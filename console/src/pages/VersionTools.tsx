import { type UseQueryResult, useQuery } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, unwrap } from '../api/client.js';
import type { components } from '../api/schema.js';
import { ErrorNotice } from '../components/ErrorNotice.js';
import { compareVersionsPath, expertPath } from '../format.js';
import { useCan } from '../session.js';

type Expert = components['schemas']['RegistryExpert'];
type ExpertVersion = components['schemas']['ExpertVersion'];

/**
 * Two versions of the name chosen from its list, opening the compare view. It starts on the version before
 * this one (or after it, for the oldest) against this one: "what did this version change?".
 */
export function CompareForm({
  name,
  current,
  versions,
}: {
  name: string;
  current: string;
  versions: readonly ExpertVersion[];
}) {
  const navigate = useNavigate();
  const here = versions.findIndex((version) => version.version === current);
  const [from, setFrom] = useState(
    versions[here + 1]?.version ?? versions[here - 1]?.version ?? versions[1]?.version ?? '',
  );
  const [to, setTo] = useState(here >= 0 ? current : (versions[0]?.version ?? ''));
  const fromId = useId();
  const toId = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void navigate(compareVersionsPath(name, from, to));
  };
  const choices = versions.map((version) => (
    <option key={version.id} value={version.version}>
      {version.version}
    </option>
  ));
  return (
    <form className="compare-form" onSubmit={submit} aria-labelledby={`${fromId}-title`}>
      <h3 id={`${fromId}-title`}>Compare two versions</h3>
      <div className="compare-form-fields">
        <div className="field">
          <label htmlFor={fromId}>From</label>
          <select id={fromId} value={from} onChange={(event) => setFrom(event.target.value)}>
            {choices}
          </select>
        </div>
        <div className="field">
          <label htmlFor={toId}>To</label>
          <select id={toId} value={to} onChange={(event) => setTo(event.target.value)}>
            {choices}
          </select>
        </div>
        <button type="submit" className="button button-small" disabled={from === to}>
          Compare
        </button>
      </div>
      {from === to && <p className="small muted">Choose two different versions.</p>}
    </form>
  );
}

type Dependent = components['schemas']['ExpertDependent'];

/**
 * Whether step `index` of a dependent's path reaches the next through a moving key (`name`, `name@latest`,
 * `name@<tag>`) rather than the exact version: such a path holds only while the tag stays where it is.
 */
const floats = (dependent: Dependent, index: number) => {
  const reference = dependent.references[index];
  return reference !== undefined && reference !== dependent.path[index + 1];
};

/** A delegate as written; a bare name (no `@` after its scope) means its latest. */
function Reference({ to = '' }: { to?: string | undefined }) {
  return (
    <>
      <code>{to}</code>
      {to.lastIndexOf('@') <= 0 && ' (its latest)'}
    </>
  );
}

/**
 * "Used by": the versions that delegate to this one, directly or through others (`GET /registry/dependents`,
 * with the path of each), bounded by the registry's limits, which are said when reached. Versions that
 * delegate only to other versions of the name (`otherVersions`, the name's delegators) follow in a note.
 */
export function UsedBy({
  expert,
  otherVersions,
}: {
  expert: Expert;
  otherVersions: UseQueryResult<ExpertVersion[]>;
}) {
  const dependents = useQuery({
    queryKey: ['dependents', expert.key],
    queryFn: async ({ signal }) =>
      unwrap(await api.GET('/registry/dependents', { params: { query: { key: expert.key } }, signal })),
  });
  const found = dependents.data?.data.dependents ?? [];
  const meta = dependents.data?.meta;
  const direct = found.filter((dependent) => dependent.depth === 1);
  const through = found.filter((dependent) => dependent.depth > 1);
  const listed = new Set(found.map((dependent) => dependent.key));
  const others = (otherVersions.data ?? []).filter((version) => !listed.has(version.key));
  const deepest = found.reduce((depth, dependent) => Math.max(depth, dependent.depth), 0);
  return (
    <section aria-labelledby="used-by" aria-busy={dependents.isPending}>
      <h2 id="used-by">Used by</h2>
      <ErrorNotice error={dependents.error} retry={dependents.refetch} />
      {dependents.isSuccess && found.length === 0 && (
        <p className="muted">No Expert delegates to {expert.key}, directly or through another.</p>
      )}
      {direct.length > 0 && (
        <>
          <h3 className="small">Directly ({direct.length})</h3>
          <ul className="link-list">
            {direct.map((dependent) => (
              <li key={dependent.key}>
                <Link to={expertPath(dependent.key)}>{dependent.key}</Link>
                {floats(dependent, 0) && (
                  <span className="small muted">
                    {' '}
                    names <Reference to={dependent.references[0]} />, a tag that moves: it uses this version
                    while the tag is here
                  </span>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
      {through.length > 0 && (
        <>
          <h3 className="small">Through other Experts ({through.length})</h3>
          <ul className="link-list dependents-through">
            {through.map((dependent) => (
              <li key={dependent.key}>
                <Link to={expertPath(dependent.key)}>{dependent.key}</Link>{' '}
                <span className="small muted">
                  (through{' '}
                  {dependent.path.slice(1, -1).map((step, index) => (
                    <span key={step}>
                      {index > 0 && ' → '}
                      <Link to={expertPath(step)}>{step}</Link>
                      {floats(dependent, index + 1) && (
                        <>
                          , which names <Reference to={dependent.references[index + 1]} />, a tag that moves
                        </>
                      )}
                    </span>
                  ))}
                  {floats(dependent, 0) && (
                    <>
                      ; it names <Reference to={dependent.references[0]} />, a tag that moves
                    </>
                  )}
                  )
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
      {meta?.truncated && (
        <p className="notice" role="note">
          Only the first {meta.limit} are listed: more Experts use this version.
        </p>
      )}
      {meta && deepest >= meta.depthLimit && (
        <p className="notice" role="note">
          Chains are followed {meta.depthLimit} delegations up: Experts further up are not listed.
        </p>
      )}
      {others.length > 0 && (
        <p className="small">
          Delegating to other versions of {expert.name}:{' '}
          {others.map((version, index) => (
            <span key={version.id}>
              {index > 0 && ', '}
              <Link to={expertPath(version.key)}>{version.key}</Link>
            </span>
          ))}
          .
        </p>
      )}
      <ErrorNotice error={otherVersions.error} retry={otherVersions.refetch} />
    </section>
  );
}

/**
 * For the owning organization's people: this version waits for a second owner or admin (the publish policy
 * held `latest` back because it widens access), with a link to where it is approved or rejected.
 */
export function PendingApprovalNotice({ expert }: { expert: Expert }) {
  const can = useCan();
  const approvals = useQuery({
    queryKey: ['approvals', 'pending'],
    enabled: can('publish-policy:read'),
    queryFn: async ({ signal }) =>
      unwrap(
        await api.GET('/api/v1/registry/approvals', { params: { query: { status: 'pending' } }, signal }),
      ).data.approvals,
  });
  const waiting = approvals.data?.find((approval) => approval.key === expert.key);
  if (!waiting) return null;
  return (
    <div className="notice notice-warning" role="note">
      <p className="notice-title">Waiting for approval: this version is published but not latest yet.</p>
      <p>
        It widens access over {waiting.previousVersion ?? 'the latest'} ({waiting.diff.reasons.join('; ')}),
        so a second owner or admin approves it first. <Link to="/publishing">Review it in Publishing</Link>
      </p>
    </div>
  );
}
