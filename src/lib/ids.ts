import { createId, isCuid } from '@paralleldrive/cuid2';

/** Entity ids: cuid2, 24 lowercase alphanumerics (contract §2). */
export const newId = (): string => createId();

export const isId = (value: string): boolean => value.length === 24 && isCuid(value);
