import type { OutboundAllowance, Resolver } from '../../lib/outbound/address-policy.js';
import { OutboundError, outboundRequest } from '../../lib/outbound/outbound-request.js';

/** A delivery waits this long for a whole answer (resolving, connection, status and the body read). */
const DELIVERY_TIMEOUT_MS = 10_000;
/** At most this much of an answer is read; the rest is dropped with the connection. */
const MAX_BODY_BYTES = 64 * 1024;
/** The delivery log keeps this much of it. */
const EXCERPT_BYTES = 1024;

export interface SendResult {
  /** The endpoint's status, when one came. */
  statusCode: number | null;
  /** Why there is no usable answer (timeout, refused target, connection error, switched protocols). */
  error: string | null;
  latencyMs: number;
  excerpt: string | null;
  /** The target was refused before any connection (the outbound address policy). */
  refused: boolean;
  /** The deadline passed before a whole answer came. */
  timedOut: boolean;
}

export interface SendOptions {
  allowedPrivateHosts: OutboundAllowance;
  timeoutMs?: number | undefined;
  /** Tests resolve names themselves. */
  resolve?: Resolver | undefined;
}

/**
 * POSTs one signed delivery through the outbound request (src/lib/outbound/): the target's address checked
 * and pinned, redirects never followed (a 3xx is a failed attempt), the answer read up to 64 KiB, and the
 * whole attempt ended by its deadline whatever the receiver does. Never throws: every outcome is a result.
 */
export async function sendDelivery(
  target: string,
  headers: Record<string, string>,
  body: string,
  options: SendOptions,
): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const response = await outboundRequest(new URL(target), {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'Cadre-Webhooks/1' },
      body,
      allowance: options.allowedPrivateHosts,
      timeoutMs: options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
      maxBodyBytes: MAX_BODY_BYTES,
      resolve: options.resolve,
    });
    return {
      statusCode: response.status,
      error: null,
      latencyMs: elapsed(),
      excerpt: logExcerpt(response.body),
      refused: false,
      timedOut: false,
    };
  } catch (error) {
    const kind = error instanceof OutboundError ? error.kind : 'network';
    const message = error instanceof Error ? error.message : 'no answer';
    return {
      statusCode: null,
      error: kind === 'refused' ? `refused: ${message}` : message,
      latencyMs: elapsed(),
      excerpt: null,
      refused: kind === 'refused',
      timedOut: kind === 'timeout',
    };
  }
}

/**
 * The beginning of an answer as the delivery log keeps it: text a database column takes whatever the
 * receiver sent. Bytes that are not UTF-8 become U+FFFD, and NUL and the other control characters (but tab
 * and line breaks) are dropped, since PostgreSQL's text refuses NUL (SQLSTATE 22021).
 */
function logExcerpt(body: Buffer): string | null {
  const text = new TextDecoder('utf-8', { fatal: false })
    .decode(body.subarray(0, EXCERPT_BYTES))
    .replace(/[^\P{Cc}\t\n\r]/gu, '');
  return text === '' ? null : text;
}
