import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import {
  type OutboundAllowance,
  RefusedTarget,
  type Resolver,
  resolveCheckedAddress,
} from './address-policy.js';

/**
 * The one way Cadre makes an HTTP request on a user's behalf (docs/operations.md, "Outbound requests"):
 * webhook deliveries and OAuth providers (through outbound-fetch.ts) alike.
 *
 * - The host is resolved and checked (address-policy.ts), then the connection goes to the very address
 *   checked, never to a second lookup of the name.
 * - One deadline covers everything (resolving, connecting, the status, the headers, the body): when it
 *   passes, the socket is destroyed whatever state the exchange is in. A peer that answers
 *   `101 Switching Protocols`, upgrades, sends informational answers forever, trickles a byte at a time or
 *   never answers cannot hold the request (nor the caller's slot) past it.
 * - At most `maxBodyBytes` of the answer are read; the rest is dropped with the connection.
 * - Redirects are never followed (a 3xx is answered as it is); no connection is reused (no agent).
 */

export interface OutboundRequestOptions {
  method: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Who may be reached besides public addresses (the operator's allowance). */
  allowance: OutboundAllowance;
  /** The whole exchange's deadline. */
  timeoutMs: number;
  /** How much of the answer is read at most. */
  maxBodyBytes: number;
  /** The caller's own cancellation (a fetch's signal): ends the request with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Tests resolve names themselves. */
  resolve?: Resolver | undefined;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The answer was longer than `maxBodyBytes`: `body` is its beginning. */
  truncated: boolean;
}

/**
 * Why a request got no usable answer. `refused`: the target was refused before any connection; `timeout`:
 * the deadline passed; `protocol`: the peer did not speak HTTP as a request expects (it switched protocols);
 * `network`: the connection failed or closed before the answer was whole.
 */
export class OutboundError extends Error {
  constructor(
    readonly kind: 'refused' | 'timeout' | 'protocol' | 'network',
    message: string,
  ) {
    super(message);
  }
}

export async function outboundRequest(url: URL, options: OutboundRequestOptions): Promise<OutboundResponse> {
  const { timeoutMs } = options;
  return new Promise<OutboundResponse>((resolve, reject) => {
    let request: http.ClientRequest | undefined;
    const sockets = new Set<Socket>();
    let phase: 'resolving' | 'waiting' | 'reading' = 'resolving';
    let settled = false;
    const end = (outcome: { response: OutboundResponse } | { error: unknown }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      // Whatever the exchange was doing, nothing of it outlives the answer.
      request?.destroy();
      for (const socket of sockets) socket.destroy();
      if ('response' in outcome) resolve(outcome.response);
      else reject(outcome.error);
    };
    const timer = setTimeout(() => {
      const where =
        phase === 'resolving' ? ' (resolving)' : phase === 'reading' ? ' (reading the answer)' : '';
      end({ error: new OutboundError('timeout', `timed out after ${timeoutMs} ms${where}`) });
    }, timeoutMs);
    const onAbort = () => end({ error: options.signal?.reason });
    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });

    resolveCheckedAddress(url, options.allowance, options.resolve).then(
      (address) => {
        if (settled) return;
        phase = 'waiting';
        request = send(url, address, options);
        request.on('socket', (socket) => {
          sockets.add(socket);
        });
        // The peer switched protocols (101, with or without an Upgrade header): no HTTP answer will follow.
        request.on('upgrade', (response, socket) => {
          socket.destroy();
          end({
            error: new OutboundError(
              'protocol',
              `the peer answered ${response.statusCode} (switching protocols) instead of an HTTP answer`,
            ),
          });
        });
        request.on('response', (response) => {
          // An informational status as the final answer (a bare 101): no HTTP answer will follow.
          if ((response.statusCode ?? 0) < 200) {
            return end({
              error: new OutboundError(
                'protocol',
                `the peer answered ${response.statusCode} (switching protocols) instead of an HTTP answer`,
              ),
            });
          }
          phase = 'reading';
          const chunks: Buffer[] = [];
          let read = 0;
          const done = (truncated: boolean) =>
            end({
              response: {
                status: response.statusCode ?? 0,
                headers: response.headers,
                body: Buffer.concat(chunks),
                truncated,
              },
            });
          response.on('data', (chunk: Buffer) => {
            if (settled) return;
            chunks.push(chunk.subarray(0, options.maxBodyBytes - read));
            read += chunk.length;
            // Enough read: stop here rather than take in whatever the peer keeps sending.
            if (read >= options.maxBodyBytes) done(read > options.maxBodyBytes);
          });
          response.on('end', () => done(false));
          response.on('error', () =>
            end({ error: new OutboundError('network', 'the connection closed before the answer was whole') }),
          );
          response.on('close', () => {
            if (!response.complete)
              end({
                error: new OutboundError('network', 'the connection closed before the answer was whole'),
              });
          });
        });
        request.on('error', (error: NodeJS.ErrnoException) =>
          end({
            error: new OutboundError('network', `${error.code ?? 'error'}: ${error.message}`.slice(0, 500)),
          }),
        );
        request.on('close', () =>
          end({ error: new OutboundError('network', 'the connection closed before an answer') }),
        );
        request.end(options.body);
      },
      (error: unknown) =>
        end({
          error:
            error instanceof RefusedTarget
              ? new OutboundError('refused', error.message)
              : new OutboundError('network', error instanceof Error ? error.message : 'resolving failed'),
        }),
    );
  });
}

/** Opens the request to the address checked; TLS still checks the certificate against the URL's name. */
function send(url: URL, address: { address: string; family: 4 | 6 }, options: OutboundRequestOptions) {
  const pinned: LookupFunction = (_host, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all) {
      (callback as unknown as (e: null, list: Array<{ address: string; family: number }>) => void)(null, [
        address,
      ]);
    } else callback(null, address.address, address.family);
  };
  const secure = url.protocol === 'https:';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return (secure ? https : http).request(url, {
    method: options.method,
    headers: {
      ...options.headers,
      ...(options.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(options.body)) }),
    },
    lookup: pinned,
    ...(secure && isIP(host) === 0 ? { servername: host } : {}),
    agent: false,
  });
}
