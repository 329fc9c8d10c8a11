import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiError } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The route's `config` (with its `url`), read once when the request arrives: `request.routeOptions`
     * builds a new object on every access, and every step needs the config.
     */
    routeConfig: FastifyContextConfig & { url?: string };
  }
}

type Done = (error?: Error) => void;

export type RequestStepResult = ApiError | undefined | Promise<ApiError | undefined>;

/**
 * Work done when a request arrives, before its body is read: answers nothing to go on, an error to answer
 * with instead, or a promise of either when it has to wait (a key not yet cached, a shared rate-limit
 * store). Answering synchronously costs the request no promise.
 */
export type RequestStep = (request: FastifyRequest, reply: FastifyReply) => RequestStepResult;

/** Work done once the answer has gone out (counting, logging); it cannot change the answer. */
export type ResponseStep = (request: FastifyRequest, reply: FastifyReply) => void;

/**
 * The cross-cutting work of every request as two ordered lists of steps, each list run by one Fastify
 * hook: the order is stated in one place (shed load before authenticating, authenticate before counting
 * against a credential…), and a request pays one hook dispatch per phase instead of one per concern.
 * Absent steps (a feature turned off) may be passed as `undefined`.
 */
export function registerRequestPipeline(
  app: FastifyInstance,
  steps: { onRequest: Array<RequestStep | undefined>; onResponse: Array<ResponseStep | undefined> },
): void {
  const onRequest = steps.onRequest.filter((step): step is RequestStep => step !== undefined);
  const onResponse = steps.onResponse.filter((step): step is ResponseStep => step !== undefined);

  app.decorateRequest('routeConfig', null as unknown as FastifyContextConfig);
  // A plain function of its arguments (no closure per request): runs the steps from `first` on.
  const runFrom = (request: FastifyRequest, reply: FastifyReply, done: Done, first: number): void => {
    for (let index = first; index < onRequest.length; index++) {
      let result: RequestStepResult;
      try {
        result = onRequest[index]!(request, reply);
      } catch (error) {
        done(error as Error);
        return;
      }
      if (result instanceof Promise) {
        result.then((error) => (error ? done(error) : runFrom(request, reply, done, index + 1)), done);
        return;
      }
      if (result) {
        done(result);
        return;
      }
    }
    done();
  };
  app.addHook('onRequest', (request, reply, done) => {
    request.routeConfig = request.routeOptions.config ?? {};
    runFrom(request, reply, done, 0);
  });

  app.addHook('onResponse', (request, reply, done) => {
    for (const step of onResponse) {
      try {
        step(request, reply);
      } catch (error) {
        // The answer is out; a failing step must not keep the others from running.
        request.log.error({ err: error }, 'response step failed');
      }
    }
    done();
  });
}
