import { ApiError } from '../../http/errors.js';

/** Opaque keyset cursor: the (createdAt, id) of the last item on the page. */
export interface KeysetPosition {
  createdAt: Date;
  id: string;
}

export const encodeCursor = (position: KeysetPosition): string =>
  Buffer.from(JSON.stringify([position.createdAt.toISOString(), position.id])).toString('base64url');

export function decodeCursor(cursor: string): KeysetPosition {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    const date = new Date(String(createdAt));
    if (typeof id !== 'string' || typeof createdAt !== 'string' || Number.isNaN(date.getTime()))
      throw new Error();
    return { createdAt: date, id };
  } catch {
    throw new ApiError('validation_failed', 'Request validation failed', [
      { path: 'query.cursor', message: 'is not a cursor returned by this endpoint' },
    ]);
  }
}
