import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { isDatabaseUnavailable, isStorageFull, sqlState } from '../db/errors.js';
import {
  ANOTHER_ORGANIZATION,
  ApiError,
  type ErrorDetail,
  serviceUnavailable,
  statusText,
} from './errors.js';
import type { ErrorShape, FaceDefaults } from './faces.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The error this request was answered with, for what runs after the answer (metrics). */
    answeredError: ApiError | null;
  }
}

export interface ErrorHandlingOptions {
  onDatabaseUnavailable?: () => void;
  /**
   * Answers a request no route matched before the JSON 404 does; returns false to decline. The root uses
   * it to give a browser asking for a page the web console (which shows its own "not found").
   */
  notFoundPage?: (request: FastifyRequest, reply: FastifyReply) => boolean;
}

/**
 * The single place where anything thrown becomes an HTTP answer in the documented shape: installed on the
 * root (routes of no face, framework errors) and, by each face, on its scope with the face's shape and its
 * not-found answer.
 */
export function registerErrorHandling(
  app: FastifyInstance,
  options: ErrorHandlingOptions = {},
  face?: FaceDefaults,
): void {
  if (!face) app.decorateRequest('answeredError', null);
  const shape = face?.errorShape ?? 'management';
  app.setErrorHandler((error, request, reply) => {
    if (isDatabaseUnavailable(error)) {
      // An outage, not a bug: 503 with Retry-After; the health monitor checks the database and, if it is
      // down, sheds load until it is back.
      options.onDatabaseUnavailable?.();
      request.log.warn({ err: error }, 'backing service unreachable');
      return sendError(
        request,
        reply,
        serviceUnavailable('The service is temporarily unavailable', 5, 'database_down'),
        shape,
      );
    }
    if (isStorageFull(error)) {
      // Nothing was written (the statement failed, its transaction rolled back): the client retries once an
      // operator has freed space. An error, not a warning: it needs a person.
      request.log.error(
        { err: error, cause: 'disk_full' },
        'database storage full: writes refused until space is freed',
      );
      return sendError(
        request,
        reply,
        serviceUnavailable(
          'The service cannot store data right now (storage full); retry later',
          30,
          'disk_full',
        ),
        shape,
      );
    }
    const state = sqlState(error);
    if (state?.startsWith('22') || state === '54000') {
      // A value the database cannot store (a NUL byte in text, a number out of range, a too-long index
      // entry) that validation let through: the request's fault, answered 400; logged to close the gap.
      request.log.warn({ err: error }, 'database refused a request value');
      return sendError(
        request,
        reply,
        new ApiError('bad_request', 'The request contains a value that cannot be stored'),
        shape,
      );
    }
    const apiError = toApiError(error as FastifyError);
    // A fault is an error; a 503 (not configured, overloaded, draining) is an expected state: a warning.
    if (apiError.status === 503) request.log.warn({ err: error }, 'service unavailable');
    else if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(request, reply, apiError, shape);
  });
  app.setNotFoundHandler((request, reply) => {
    if (options.notFoundPage?.(request, reply)) return reply;
    // No route, so no route config: the face's own defaults apply here.
    if (face?.noStore) reply.header('cache-control', 'no-store');
    return sendError(
      request,
      reply,
      new ApiError('not_found', `No route for ${request.method} ${request.url.split('?')[0]}`),
      shape,
    );
  });
}

/** Answers `error` in `shape`: by default the shape of the request's face (management without one). */
export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  error: ApiError,
  shape: ErrorShape = request.routeConfig?.errorShape ?? 'management',
): FastifyReply {
  request.answeredError = error;
  if (error.headers) reply.headers(error.headers);
  if (shape === 'registry' || shape === 'perstack') {
    const details = error.details?.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join('; ');
    // "Request validation failed: body.name: …"; a message that is already a sentence gets them after it.
    const reason = !details
      ? error.message
      : error.message.endsWith('.')
        ? `${error.message} [${details}]`
        : `${error.message}: ${details}`;
    const status = shape === 'perstack' ? perstackStatus(error) : registryStatus(error);
    // Perstack's tools show `error` alone: there it carries the reason after the status's words.
    const text = shape === 'perstack' ? `${perstackStatusText(status)}: ${reason}` : statusText(status);
    return reply.code(status).type('application/json').send({ code: status, error: text, reason });
  }
  return reply
    .code(error.status)
    .type('application/json')
    .send({
      error: {
        code: error.code,
        message: error.message,
        requestId: request.id,
        ...(error.details ? { details: error.details } : {}),
      },
    });
}

/** Registry convention: validation problems are plain 400s (docs/errors.md). */
const registryStatus = (error: ApiError): number => (error.code === 'validation_failed' ? 400 : error.status);

/**
 * The statuses Perstack's registry API documents, where they differ from the registry's (docs/perstack.md
 * "Errors"): a validation failure is 422, and a name or Expert of another organization is 400.
 */
function perstackStatus(error: ApiError): number {
  if (error.code === 'forbidden' && error.cause === ANOTHER_ORGANIZATION) return 400;
  return error.status;
}

/** Perstack's API names its 422 "Validation Failed"; every other status has its usual words. */
const perstackStatusText = (status: number): string =>
  status === 422 ? 'Validation Failed' : statusText(status);

function toApiError(error: FastifyError): ApiError {
  if (error instanceof ApiError) return error;
  if (hasZodFastifySchemaValidationErrors(error)) {
    // Body fields are named as they are sent (`grants.type`); other parts keep their place (`query.limit`,
    // `params.apiKeyId`): Fastify's "querystring" is answered as "query", the name docs/errors.md uses.
    const context = error.validationContext === 'querystring' ? 'query' : error.validationContext;
    const where = context && context !== 'body' ? [context] : [];
    const details: ErrorDetail[] = error.validation.map((issue) => ({
      path: [...where, ...issue.instancePath.split('/').filter(Boolean)].join('.'),
      message: issue.message ?? 'is invalid',
    }));
    return new ApiError('validation_failed', 'Request validation failed', details);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('bad_request', 'The request body is not valid JSON');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', 'Unsupported Content-Type: send application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('bad_request', 'The Content-Length does not match the body');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', 'The request body is too large');
  }
  if (error.validation) {
    return new ApiError(
      'validation_failed',
      'Request validation failed',
      error.validation.map((issue) => ({ path: issue.instancePath, message: issue.message ?? 'invalid' })),
    );
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    // Fastify's own client errors (bad URL encoding, bad headers): answer them, in our shape.
    return new ApiError(error.statusCode === 413 ? 'payload_too_large' : 'bad_request', error.message);
  }
  return new ApiError('internal_error', 'The server could not complete the request');
}
