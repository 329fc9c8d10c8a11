import { type ReactNode, useId } from 'react';
import { useModalDialog } from './modal-dialog.js';

/**
 * Asks before a destructive action, in the browser's own modal <dialog>: showModal() focuses its first
 * button (Cancel), Escape cancels, and focus returns to the button that opened it.
 */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useModalDialog(props.open);
  // One per list item on some pages: each names itself by its own title, never by the first on the page.
  const titleId = useId();
  return (
    <dialog ref={ref} className="dialog" aria-labelledby={titleId} onCancel={props.onCancel}>
      <h2 id={titleId}>{props.title}</h2>
      <div className="dialog-body">{props.children}</div>
      <div className="actions">
        <button type="button" className="button" onClick={props.onCancel}>
          Cancel
        </button>
        <button
          type="button"
          className={props.danger ? 'button button-danger' : 'button button-primary'}
          onClick={props.onConfirm}
          disabled={props.busy}
        >
          {props.busy ? 'Working…' : props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
