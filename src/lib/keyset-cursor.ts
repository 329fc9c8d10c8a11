import { ApiError } from '../http/errors.js';

/**
 * An opaque cursor for lists ordered by (created_at, id): the last item's position. Stable while rows are
 * added or removed elsewhere in the list (docs/organization-api.md, "Pages").
 */
export interface KeysetPosition {
  at: Date;
  id: string;
}

export const encodeKeysetCursor = (position: KeysetPosition): string =>
  Buffer.from(`t1:${position.at.toISOString()}|${position.id}`).toString('base64url');

export function decodeKeysetCursor(cursor: string): KeysetPosition {
  const match = /^t1:(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)\|([A-Za-z0-9_-]{1,64})$/.exec(
    Buffer.from(cursor, 'base64url').toString('utf8'),
  );
  const at = match ? new Date(match[1]!) : undefined;
  if (!match || !at || Number.isNaN(at.getTime())) {
    throw new ApiError('validation_failed', 'Request validation failed', [
      { path: 'query.cursor', message: 'is not a cursor returned by this endpoint' },
    ]);
  }
  return { at, id: match[2]! };
}
