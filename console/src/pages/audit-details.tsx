import { Link } from 'react-router';
import type { components } from '../api/schema.js';
import { CopyButton } from '../components/CopyButton.js';
import { useModalDialog } from '../components/modal-dialog.js';
import { ScrollableCode } from '../components/ScrollableCode.js';
import { formatDateTime } from '../format.js';
import { actionWords, actorWords, changeSentences, TARGET_WORDS, targetLink } from './audit-words.js';

type AuditEvent = components['schemas']['AuditEvent'];

/**
 * One event in full, as a side panel (the browser's modal <dialog>: focus moves into it, Escape closes it
 * and focus returns to the row's Details button): the sentence, who and how, what it was made to with the
 * ids an API user copies, and the raw JSON for those who want it.
 */
export function AuditDetails({ event, onClose }: { event: AuditEvent | null; onClose: () => void }) {
  const ref = useModalDialog(event !== null);
  const who = event ? actorWords(event) : null;
  const link = event ? targetLink(event) : null;
  return (
    <dialog ref={ref} className="dialog side-panel" aria-labelledby="audit-details-title" onClose={onClose}>
      {event && who && (
        <>
          <div className="side-panel-head">
            <h2 id="audit-details-title">{actionWords(event.action)}</h2>
            <button type="button" className="button" onClick={onClose}>
              Close
            </button>
          </div>
          <p className="muted small">{formatDateTime(event.createdAt)}</p>
          <ul className="sentences">
            {changeSentences(event).map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
          <dl className="facts">
            <dt>Who</dt>
            <dd>
              {who.name} <span className="muted">({who.how})</span>
            </dd>
            <dt>On</dt>
            <dd>
              {link ? (
                <Link to={link}>{event.target.name ?? TARGET_WORDS[event.target.type]}</Link>
              ) : (
                event.target.name
              )}{' '}
              <span className="muted">({TARGET_WORDS[event.target.type] ?? event.target.type})</span>
            </dd>
            <dt>Action</dt>
            <dd>
              <code>{event.action}</code>
            </dd>
            <dt>Target id</dt>
            <dd className="copyable">
              <code>{event.target.id}</code>{' '}
              <CopyButton text={event.target.id} label="Copy id" context="of the target" />
            </dd>
            <dt>Event id</dt>
            <dd className="copyable">
              <code>{event.id}</code> <CopyButton text={event.id} label="Copy id" context="of the event" />
            </dd>
          </dl>
          <details className="raw-json">
            <summary>Raw JSON</summary>
            <ScrollableCode label="The event as JSON" className="code">
              {JSON.stringify(event, null, 2)}
            </ScrollableCode>
          </details>
        </>
      )}
    </dialog>
  );
}
