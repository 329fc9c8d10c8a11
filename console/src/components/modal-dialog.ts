import { useEffect, useRef } from 'react';

/**
 * The browser's own modal <dialog>, shown while `open`: showModal() moves focus into it, Escape closes it,
 * and focus returns to the control that opened it. Attach the returned ref to the <dialog>.
 */
export function useModalDialog(open: boolean) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return ref;
}
