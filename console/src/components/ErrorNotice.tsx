import { Link } from 'react-router';
import { ApiProblem } from '../api/client.js';
import { useMe } from '../session.js';

const STATUS_WORDS: Record<number, string> = {
  400: 'The request was not accepted.',
  401: 'You are not signed in, or your session has ended.',
  403: 'You are not allowed to do this.',
  404: 'Not found.',
  409: 'This conflicts with the current state.',
  413: 'This is too large.',
  422: 'Some values are not valid.',
  429: 'Too many requests right now. Wait a moment and try again.',
  503: 'The service is busy or unavailable. Try again shortly.',
};

/**
 * An API failure (or any error) in words, with the request id to quote to an operator; never raw JSON.
 * A failed fetch passes `retry` (the query's refetch): the notice then offers to ask again.
 */
export function ErrorNotice({
  error,
  title,
  retry,
}: {
  error: unknown;
  title?: string;
  retry?: () => unknown;
}) {
  const me = useMe();
  if (!error) return null;
  const problem = error instanceof ApiProblem ? error : undefined;
  // A plan's limit is not a permission: say so, and say what lifts it — upgrading, for those who may,
  // else asking an owner.
  const planLimit = problem?.code === 'plan_limit_exceeded';
  const canUpgrade = Boolean(me.data?.permissions.includes('billing:manage'));
  const summary = planLimit
    ? "Your organization's plan does not allow more of these."
    : problem
      ? (STATUS_WORDS[problem.status] ?? 'Something went wrong.')
      : 'Something went wrong.';
  const message = problem?.message ?? (error instanceof Error ? error.message : String(error));
  const offline = error instanceof TypeError;
  return (
    <div className="notice notice-error" role="alert">
      <p className="notice-title">{title ?? summary}</p>
      <p>{offline ? 'Cadre could not be reached. Check your connection and try again.' : message}</p>
      {problem && problem.details.length > 0 && (
        <ul>
          {problem.details.map((detail) => (
            <li key={`${detail.path}:${detail.message}`}>
              {detail.path ? <code>{detail.path}</code> : null} {detail.message}
            </li>
          ))}
        </ul>
      )}
      {planLimit && (
        <p>
          {canUpgrade ? (
            <Link to="/billing">See the plans and upgrade</Link>
          ) : (
            'Ask an owner of your organization to upgrade its plan, or remove some you no longer use.'
          )}
        </p>
      )}
      {problem?.requestId && (
        <p className="muted small">
          Request id <code>{problem.requestId}</code>
        </p>
      )}
      {retry && (
        <button type="button" className="button button-small" onClick={() => void retry()}>
          Retry
        </button>
      )}
    </div>
  );
}
