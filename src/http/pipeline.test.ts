import Fastify, { type FastifyBaseLogger } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from './errors.js';
import { type RequestStep, type ResponseStep, registerRequestPipeline } from './pipeline.js';

let close: (() => Promise<void>) | undefined;
afterEach(() => close?.());

/** A real server on loopback with the pipeline and one route; answers errors as `{code}`. */
async function serve(steps: { onRequest: Array<RequestStep | undefined>; onResponse: ResponseStep[] }) {
  const errors: string[] = [];
  const logger = {
    level: 'error',
    error: (object: { err?: Error }) => void errors.push(object.err?.message ?? ''),
    info: () => undefined,
    warn: () => undefined,
    debug: () => undefined,
    trace: () => undefined,
    fatal: () => undefined,
    silent: () => undefined,
    child() {
      return this;
    },
  } as unknown as FastifyBaseLogger;
  const app = Fastify({ loggerInstance: logger });
  app.setErrorHandler((error, _request, reply) =>
    reply.code(error instanceof ApiError ? error.status : 500).send({ code: (error as ApiError).code }),
  );
  registerRequestPipeline(app, steps);
  app.get('/', async () => ({ ok: true }));
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  close = () => app.close();
  return { url, errors };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('registerRequestPipeline', () => {
  it('runs request steps in order, waiting for the ones that answer with a promise', async () => {
    const seen: string[] = [];
    const { url } = await serve({
      onRequest: [
        () => void seen.push('sync') as undefined,
        undefined,
        async () => {
          await nextTurn();
          seen.push('async');
          return undefined;
        },
        () => void seen.push('after') as undefined,
      ],
      onResponse: [() => void seen.push('response')],
    });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    await nextTurn();
    expect(seen).toEqual(['sync', 'async', 'after', 'response']);
  });

  it('answers with the first error a step returns, resolves to or throws, and skips the rest', async () => {
    let ran = 0;
    const later: RequestStep = () => {
      ran++;
      return undefined;
    };
    for (const failing of [
      () => new ApiError('rate_limited', 'returned'),
      async () => new ApiError('unauthorized', 'resolved'),
      () => {
        throw new ApiError('forbidden', 'thrown');
      },
      async () => {
        throw new ApiError('service_unavailable', 'rejected');
      },
    ] satisfies RequestStep[]) {
      const { url } = await serve({ onRequest: [failing, later], onResponse: [] });
      const res = await fetch(url);
      expect([429, 401, 403, 503]).toContain(res.status);
      await close?.();
      close = undefined;
    }
    expect(ran).toBe(0);
  });

  it('runs every response step even when one throws, and logs the failure', async () => {
    const seen: string[] = [];
    const { url, errors } = await serve({
      onRequest: [],
      onResponse: [
        () => {
          throw new Error('counter broke');
        },
        () => void seen.push('logged'),
      ],
    });
    expect((await fetch(url)).status).toBe(200);
    await nextTurn();
    expect(seen).toEqual(['logged']);
    expect(errors).toEqual(['counter broke']);
  });
});
