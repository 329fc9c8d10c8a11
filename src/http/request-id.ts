import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const ACCEPTED = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a caller's well-formed `X-Request-Id` (so traces join up); otherwise makes one. */
export function requestId(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  if (typeof incoming === 'string' && ACCEPTED.test(incoming)) return incoming;
  return `req_${randomBytes(12).toString('base64url')}`;
}
