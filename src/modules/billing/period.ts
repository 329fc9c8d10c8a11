/** The same instant one calendar month later (UTC); the 31st becomes the last day of a shorter month. */
export function addMonths(date: Date, months: number): Date {
  const target = new Date(date.getTime());
  const day = target.getUTCDate();
  target.setUTCDate(1);
  target.setUTCMonth(target.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(day, lastDay));
  return target;
}

/** The UTC calendar month containing `now`: the usage period of an organization without a subscription. */
export function calendarMonth(now: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  return { start, end: addMonths(start, 1) };
}

/** The start of the UTC hour containing `date` (the bucket of the API request counter). */
export const hourOf = (date: Date): Date => new Date(Math.floor(date.getTime() / 3_600_000) * 3_600_000);
