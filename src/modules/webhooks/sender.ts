import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { type AllowedPrivateHosts, RefusedTarget, resolveSafeTarget } from './safe-target.js';

/** A delivery waits this long for a whole answer (connection, status and the body read). */
const DELIVERY_TIMEOUT_MS = 10_000;
/** At most this much of an answer is read; the rest is dropped with the connection. */
const MAX_BODY_BYTES = 64 * 1024;
/** The delivery log keeps this much of it. */
const EXCERPT_BYTES = 1024;

export interface SendResult {
  /** The endpoint's status, when one came. */
  statusCode: number | null;
  /** Why there is no usable answer (timeout, refused target, connection error). */
  error: string | null;
  latencyMs: number;
  excerpt: string | null;
  /** The target was refused before any connection (safe-target rules). */
  refused: boolean;
}

export interface SendOptions {
  allowedPrivateHosts: AllowedPrivateHosts;
  timeoutMs?: number;
  /** Tests resolve names themselves. */
  resolve?: Parameters<typeof resolveSafeTarget>[2];
}

/**
 * POSTs one signed delivery. The host is resolved and checked here, then the connection goes to the very
 * address checked (a `lookup` that answers it), so the name cannot be re-resolved to somewhere else in
 * between. Redirects are never followed (node's http never does; a 3xx is a failed attempt). The answer is
 * read up to 64 KiB, within the same 10 s as the rest.
 */
export async function sendDelivery(
  target: string,
  headers: Record<string, string>,
  body: string,
  options: SendOptions,
): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const url = new URL(target);
  const deadline = AbortSignal.timeout(timeoutMs);
  let address: { address: string; family: 4 | 6 };
  try {
    address = await Promise.race([
      resolveSafeTarget(url, options.allowedPrivateHosts, options.resolve),
      new Promise<never>((_, reject) =>
        deadline.addEventListener('abort', () => reject(new Error('timeout')), { once: true }),
      ),
    ]);
  } catch (error) {
    if (error instanceof RefusedTarget) {
      return {
        statusCode: null,
        error: `refused: ${error.message}`,
        latencyMs: elapsed(),
        excerpt: null,
        refused: true,
      };
    }
    return {
      statusCode: null,
      error: `timed out after ${timeoutMs} ms (resolving)`,
      latencyMs: elapsed(),
      excerpt: null,
      refused: false,
    };
  }
  const pinned: LookupFunction = (_host, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all) {
      (callback as unknown as (e: null, list: Array<{ address: string; family: number }>) => void)(null, [
        address,
      ]);
    } else callback(null, address.address, address.family);
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'latencyMs' | 'refused'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...result, latencyMs: elapsed(), refused: false });
    };
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'Cadre-Webhooks/1',
        },
        lookup: pinned,
        // TLS still checks the certificate against the URL's name, not the address connected to.
        ...(url.protocol === 'https:' ? { servername: url.hostname.replace(/^\[(.*)\]$/, '$1') } : {}),
        agent: false,
        signal: deadline,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let read = 0;
        const done = () => {
          const excerpt = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
          finish({ statusCode: response.statusCode ?? null, error: null, excerpt: excerpt || null });
          request.destroy();
        };
        response.on('data', (chunk: Buffer) => {
          if (read >= MAX_BODY_BYTES) return;
          chunks.push(chunk.subarray(0, MAX_BODY_BYTES - read));
          read += chunk.length;
          // Enough read: stop here rather than take in whatever the endpoint keeps sending.
          if (read >= MAX_BODY_BYTES) done();
        });
        response.on('end', done);
        response.on('error', () => done());
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (deadline.aborted) {
        finish({ statusCode: null, error: `timed out after ${timeoutMs} ms`, excerpt: null });
      } else {
        finish({
          statusCode: null,
          error: `${error.code ?? 'error'}: ${error.message}`.slice(0, 500),
          excerpt: null,
        });
      }
    });
    request.end(body);
  });
}
