import { useEffect, useRef, useState } from 'react';

/**
 * Copies `text`, and says so in words: the button shows "Copied" (or "Copy failed") for two seconds after the
 * last click, and a polite live region beside it tells a screen reader.
 *
 * Its name says what it copies, never the text itself (a screen reader would read a whole API key or snippet
 * aloud): `label` is the words it shows ("Copy id"); `context`, when the place needs more words to tell this
 * button from its neighbours, follows them in its name ("Copy id" + "of ci-deploy"). The name starts with the
 * words shown, so a voice user saying what they see names it. While it shows "Copied", that is its name.
 */
export function CopyButton({ text, label, context }: { text: string; label: string; context?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  // One timer: a second click's two seconds start again, not end at the first click's.
  const reset = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(reset.current), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
    window.clearTimeout(reset.current);
    reset.current = window.setTimeout(() => setState('idle'), 2_000);
  };
  const shown = state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : label;
  return (
    <>
      <button
        type="button"
        className="button button-small"
        onClick={copy}
        aria-label={state === 'idle' && context ? `${label} ${context}` : undefined}
      >
        {shown}
      </button>
      {/* Outside the button: a button's content is one name to assistive technology, not a live region. */}
      <span className="visually-hidden" aria-live="polite">
        {state === 'copied'
          ? 'Copied to the clipboard'
          : state === 'failed'
            ? 'Could not copy: select the text and copy it'
            : ''}
      </span>
    </>
  );
}
