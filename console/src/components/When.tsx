import { formatDateTime, formatRelative } from '../format.js';

/** An instant, relative when recent ("2 min. ago"), with its absolute time in the title and dateTime. */
export function When({ at }: { at: string }) {
  return (
    <time dateTime={at} title={formatDateTime(at)}>
      {formatRelative(at)}
    </time>
  );
}
