const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const timeFormat = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });
// Billing periods are whole UTC days with an exclusive end (Nov 1 00:00 UTC – Dec 1 00:00 UTC): their days
// are read in UTC, so the period reads Nov 1 – Nov 30 in every viewer's time zone.
const periodDayFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const relativeFormat = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' });

/** An instant as a day in the viewer's time zone. */
export const formatDate = (iso: string) => dateFormat.format(new Date(iso));
/** An instant as a day and time in the viewer's time zone. */
export const formatDateTime = (iso: string) => dateTimeFormat.format(new Date(iso));

/** A billing period's first and last day ("Nov 1, 2026 – Nov 30, 2026"); `end` is exclusive. */
export const formatPeriod = (startIso: string, endIso: string) =>
  `${periodDayFormat.format(new Date(startIso))} – ${periodDayFormat.format(new Date(new Date(endIso).getTime() - 1))}`;

const STEPS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 7],
];

/** An instant's time of day in the viewer's time zone ("1:09 PM"). */
export const formatTime = (iso: string) => timeFormat.format(new Date(iso));

/**
 * A recent instant relative to now ("2 min. ago", "yesterday"); undefined a week or more away, where the
 * absolute time says it better. Callers show the absolute time beside it (see <When>), so the relative words
 * are never the only record.
 */
export function relativeWords(iso: string, now: number = Date.now()): string | undefined {
  let amount = (new Date(iso).getTime() - now) / 1000;
  for (const [unit, size] of STEPS) {
    if (Math.abs(amount) < size) return relativeFormat.format(Math.round(amount), unit);
    amount /= size;
  }
  return undefined;
}

/** A console link to an Expert key; `@` and `/` stay readable in the address bar. */
export const expertPath = (key: string) =>
  `/experts/${key.split('/').map(encodeURIComponent).join('/').replace(/%40/g, '@')}`;

/** The compare view of two versions of a name: `/experts/<name>/compare?from=…&to=…` (deep-linkable). */
export const compareVersionsPath = (name: string, from: string, to: string) =>
  `${expertPath(name)}/compare?${new URLSearchParams({ from, to })}`;

/**
 * The name a compare path is for (`writer/compare`, `@acme/writer/compare`), else undefined. A name holds at
 * most one `/` (after its scope), so `@acme/compare` stays the Expert of that name.
 */
export function compareNameOf(splat: string): string | undefined {
  let path = splat;
  try {
    path = decodeURIComponent(splat);
  } catch {
    // not encoded text: read as written
  }
  return /^((?:@[^/@]+\/)?[^/@]+)\/compare$/.exec(path)?.[1];
}
