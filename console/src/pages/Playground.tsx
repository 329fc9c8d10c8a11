import { useDeferredValue, useId, useMemo, useState } from 'react';
import {
  configJsonSchema,
  type Diagnostic,
  parseConfig,
  SCHEMA_FILE_NAME,
} from '../../../src/shared/config-file/index.js';
import { PageHeader } from '../components/PageHeader.js';
import { ScrollableCode } from '../components/ScrollableCode.js';
import { STARTER } from '../playground/starter.js';

/** Diagnostics for `text`, exactly as `cadre config validate` finds them: the same code, in the page. */
function diagnose(text: string): { diagnostics: Diagnostic[]; experts: number } {
  const result = parseConfig(text, { path: 'cadre.toml' });
  if (!result.ok) return { diagnostics: result.diagnostics, experts: 0 };
  return { diagnostics: result.warnings, experts: Object.keys(result.config.experts ?? {}).length };
}

function downloadSchema() {
  const blob = new Blob([`${JSON.stringify(configJsonSchema(), null, 2)}\n`], {
    type: 'application/schema+json',
  });
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = SCHEMA_FILE_NAME;
  link.click();
  window.setTimeout(() => URL.revokeObjectURL(link.href), 1_000);
}

export function Playground() {
  const [text, setText] = useState(STARTER);
  // Typing stays smooth on a long file: the check runs on the deferred text, after the keystroke paints.
  const deferred = useDeferredValue(text);
  const { diagnostics, experts } = useMemo(() => diagnose(deferred), [deferred]);
  const editorId = useId();
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.length - errors;
  const lines = text.split(/\r?\n/);
  const summary =
    diagnostics.length === 0
      ? `Valid: ${experts} ${experts === 1 ? 'Expert' : 'Experts'}, no problems.`
      : `${errors} ${errors === 1 ? 'error' : 'errors'}, ${warnings} ${warnings === 1 ? 'warning' : 'warnings'}.`;
  return (
    <section className="page">
      <PageHeader title="cadre.toml playground">
        Paste or edit a configuration file: it is checked as you type, in your browser, by the same validator
        as <code>cadre config validate</code>. Nothing is sent to the server.
      </PageHeader>
      <div className="playground">
        <div className="editor-pane">
          <div className="row space-between">
            <label htmlFor={editorId}>cadre.toml</label>
            <span className="actions">
              <button type="button" className="button button-small" onClick={() => setText(STARTER)}>
                Reset example
              </button>
              <button type="button" className="button button-small" onClick={downloadSchema}>
                Download JSON Schema
              </button>
            </span>
          </div>
          <textarea
            id={editorId}
            className="editor"
            value={text}
            spellCheck={false}
            autoCapitalize="off"
            autoCorrect="off"
            aria-describedby="playground-summary"
            onChange={(event) => setText(event.target.value)}
          />
        </div>
        <div className="diagnostics-pane">
          <h2
            id="playground-summary"
            className={
              errors ? 'summary summary-error' : warnings ? 'summary summary-warning' : 'summary summary-ok'
            }
            aria-live="polite"
          >
            {summary}
          </h2>
          <ol className="diagnostics">
            {diagnostics.map((d) => (
              <li
                key={`${d.line}:${d.column}:${d.kind}:${d.message}`}
                className={`diagnostic diagnostic-${d.severity}`}
              >
                <p>
                  <span className="badge">{d.severity === 'error' ? 'Error' : 'Warning'}</span>{' '}
                  <span className="muted small">
                    line {d.line}, column {d.column}
                  </span>
                </p>
                <p className="diagnostic-message">{d.message}</p>
                <ScrollableCode className="code small" label={`Excerpt at line ${d.line}`}>
                  {`${d.line} | ${lines[d.line - 1] ?? ''}\n${' '.repeat(String(d.line).length)} | ${' '.repeat(Math.max(0, d.column - 1))}${'^'.repeat(Math.max(1, d.length))}`}
                </ScrollableCode>
                {d.path && (
                  <p className="small">
                    Path: <code>{d.path}</code>
                  </p>
                )}
                <p className="small">Hint: {d.hint}</p>
              </li>
            ))}
          </ol>
        </div>
      </div>
    </section>
  );
}
