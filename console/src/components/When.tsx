import { formatDate, formatDateTime, formatTime, relativeWords } from '../format.js';

/**
 * An instant, relative when recent ("2 min. ago"), with its absolute time in the title and dateTime; older,
 * the day and the time. Each is kept whole, so a narrow column (the Events and audit tables) never breaks
 * "11 sec. ago" or "Nov 27, 2026", and a date only between its day and its time.
 */
export function When({ at }: { at: string }) {
  const recent = relativeWords(at);
  return (
    <time dateTime={at} title={formatDateTime(at)}>
      {recent ? <span className="nowrap">{recent}</span> : <DayAndTime at={at} />}
    </time>
  );
}

/** An instant's day and time ("Nov 27, 2026, 1:09 PM"), a line breaking between the two only. */
export function DayAndTime({ at }: { at: string }) {
  return (
    <>
      <span className="nowrap">{formatDate(at)},</span> <span className="nowrap">{formatTime(at)}</span>
    </>
  );
}
