import type { OutboundAllowance, Resolver } from './address-policy.js';
import { OutboundError, outboundRequest } from './outbound-request.js';

export interface OutboundFetchOptions {
  /** Who may be reached besides public addresses (the operator's allowance, e.g. loopback in development). */
  allowance: OutboundAllowance;
  /** Each request's deadline, whatever the peer does (default 10 s); a caller's `signal` may end it sooner. */
  timeoutMs?: number | undefined;
  /** The longest answer taken (default 1 MiB); a longer one is a failed request, not a cut one. */
  maxBodyBytes?: number | undefined;
  /** Tests resolve names themselves. */
  resolve?: Resolver | undefined;
}

/**
 * A `fetch` for libraries that take one (oauth4webapi's `customFetch`), made of the outbound request
 * (outbound-request.ts): the target's address is checked and the connection pinned to it, every request
 * ends by its deadline, redirects are never followed (a 3xx is answered as it is).
 *
 * It fails the way fetch fails: a TypeError (`fetch failed: …`, the cause an OutboundError) when there is no
 * answer, a `TimeoutError` DOMException at its deadline, the signal's reason when the caller aborts. A refused
 * target fails before any connection, with the same message whatever private address a name resolves to.
 */
export function createOutboundFetch(options: OutboundFetchOptions): typeof fetch {
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  return async (input, init) => {
    const request = new Request(input, init);
    const body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
    try {
      const answer = await outboundRequest(new URL(request.url), {
        method: request.method,
        // Some APIs refuse a request without a User-Agent (GitHub's); fetch would have sent one.
        headers: { 'user-agent': 'Cadre', ...Object.fromEntries(request.headers) },
        body,
        allowance: options.allowance,
        timeoutMs: options.timeoutMs ?? 10_000,
        maxBodyBytes,
        signal: init?.signal ?? undefined,
        resolve: options.resolve,
      });
      if (answer.truncated)
        throw new OutboundError('protocol', `the answer is longer than ${maxBodyBytes} bytes`);
      if (answer.status > 599)
        throw new OutboundError('protocol', `the peer answered status ${answer.status}`);
      const headers = new Headers();
      for (const [name, value] of Object.entries(answer.headers)) {
        for (const each of [value ?? []].flat()) headers.append(name, each);
      }
      const empty = request.method === 'HEAD' || [204, 205, 304].includes(answer.status);
      return new Response(empty ? null : answer.body, { status: answer.status, headers });
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      if (error.kind === 'timeout') throw new DOMException(error.message, 'TimeoutError');
      throw new TypeError(`fetch failed: ${error.message}`, { cause: error });
    }
  };
}
