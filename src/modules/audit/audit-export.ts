import type { AuditEventRecord } from './audit.schemas.js';

const CSV_COLUMNS = [
  'createdAt',
  'action',
  'actorKind',
  'actorName',
  'actorUserId',
  'actorApiKeyId',
  'targetType',
  'targetName',
  'targetId',
  'metadata',
] as const;

/**
 * One CSV cell (RFC 4180 quoting). A cell a spreadsheet would read as a formula (it begins with = + - @, or
 * a tab or carriage return that some programs skip) gets a leading apostrophe: names and metadata are
 * user text, and a download must not run it (OWASP, "CSV injection").
 */
function csvCell(value: string | null): string {
  if (value === null) return '';
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

function csvRow(event: AuditEventRecord): string {
  const cells: Array<string | null> = [
    event.createdAt,
    event.action,
    event.actor.kind,
    event.actor.name,
    event.actor.userId,
    event.actor.apiKeyId,
    event.target.type,
    event.target.name,
    event.target.id,
    event.metadata ? JSON.stringify(event.metadata) : null,
  ];
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** The export's lines: a CSV header then one row per event, or one JSON object per line (NDJSON). */
export async function* exportLines(
  format: 'ndjson' | 'csv',
  events: AsyncIterable<AuditEventRecord>,
): AsyncGenerator<string> {
  if (format === 'csv') yield `${CSV_COLUMNS.join(',')}\r\n`;
  for await (const event of events) yield format === 'csv' ? csvRow(event) : `${JSON.stringify(event)}\n`;
}
