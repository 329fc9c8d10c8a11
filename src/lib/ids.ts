import { createId, isCuid } from '@paralleldrive/cuid2';

/** Entity ids: cuid2, 24 lowercase alphanumerics (docs/admin-api.md). */
export const newId = (): string => createId();

export const isId = (value: string): boolean => value.length === 24 && isCuid(value);
