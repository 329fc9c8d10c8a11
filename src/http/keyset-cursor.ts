import { ApiError } from './errors.js';

/**
 * An opaque cursor for lists ordered by (created_at, id): the last item's position, its time in
 * microseconds since the epoch (PostgreSQL keeps microseconds; a JavaScript Date would drop them and repeat
 * or skip rows created within one millisecond). Stable while rows are added or removed elsewhere in the list
 * (docs/organization-api.md, "Pages").
 */
export interface KeysetPosition {
  micros: string;
  id: string;
}

export const encodeKeysetCursor = (position: KeysetPosition): string =>
  Buffer.from(`t2:${position.micros}|${position.id}`).toString('base64url');

export function decodeKeysetCursor(cursor: string): KeysetPosition {
  const match = /^t2:(\d{1,20})\|([A-Za-z0-9_-]{1,64})$/.exec(
    Buffer.from(cursor, 'base64url').toString('utf8'),
  );
  if (!match) {
    throw new ApiError('validation_failed', 'Request validation failed', [
      { path: 'query.cursor', message: 'is not a cursor returned by this endpoint' },
    ]);
  }
  return { micros: match[1]!, id: match[2]! };
}
