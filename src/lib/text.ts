/** A value as text when it is a non-empty string, else null (a field of JSON details may hold anything). */
export const nonEmptyText = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : null;
