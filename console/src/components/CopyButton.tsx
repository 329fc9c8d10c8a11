import { useState } from 'react';

/** Copies `text`; says so in words (announced to screen readers), and falls back to selecting it. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
    window.setTimeout(() => setState('idle'), 2_000);
  };
  const shown = state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : label;
  // The name starts with the words shown ("Copied" too, while it says so): what a voice user says is its name.
  return (
    <button type="button" className="button button-small" onClick={copy} aria-label={`${shown}: ${text}`}>
      {shown}
      <span className="visually-hidden" aria-live="polite">
        {state === 'copied' ? 'Copied to the clipboard' : ''}
      </span>
    </button>
  );
}
