import { ApiError } from './errors.js';

/**
 * Opaque keyset cursor for lists in insertion order (API keys, audit events, events, deliveries): the
 * insertion sequence number of the last item on the page.
 */
export const encodeCursor = (seq: number): string => Buffer.from(`k1:${seq}`).toString('base64url');

export function decodeCursor(cursor: string): number {
  const match = /^k1:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) {
    throw new ApiError('validation_failed', 'Request validation failed', [
      { path: 'query.cursor', message: 'is not a cursor returned by this endpoint' },
    ]);
  }
  return Number(match[1]);
}
