import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { FastifyRouteSchemaDef } from 'fastify/types/schema.js';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { managementErrorSchema, registryErrorSchema } from './errors.js';

/** The Fastify instance every route module receives: zod schemas type its requests and replies. */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

/**
 * An answer that does not change while the process runs, encoded once through its response schema (what
 * the serializer would do on every request) into the bytes `sendSerialized` sends.
 */
export const preSerialized = <T extends z.ZodType>(schema: T, value: z.output<T>): Buffer =>
  Buffer.from(JSON.stringify(z.encode(schema, value)));

/** Sends JSON already serialized through its response schema (a Buffer bypasses the serializer). */
export const sendSerialized = (reply: FastifyReply, body: Buffer): FastifyReply =>
  reply.type('application/json; charset=utf-8').send(body);

/** `{ data: … }`, the envelope of every successful single-resource management answer. */
export const dataOf = <T extends z.ZodType>(schema: T) => z.object({ data: schema });

type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 413 | 415 | 422 | 429 | 500 | 503;

/**
 * The error answers a management route documents, each in the PublicApiError shape. Every route may answer
 * 400, 413 (body over the limit), 415 (a body that is not UTF-8 JSON), 429 (rate limits), 500 and 503
 * (overload, outage, deadline).
 */
export const managementErrors = (...statuses: ErrorStatus[]) =>
  Object.fromEntries(
    [...new Set<ErrorStatus>([400, ...statuses, 413, 415, 429, 500, 503])].map((status) => [
      status,
      managementErrorSchema,
    ]),
  ) as Record<ErrorStatus, typeof managementErrorSchema>;

export const registryErrors = (...statuses: ErrorStatus[]) =>
  Object.fromEntries(
    [...new Set<ErrorStatus>([400, ...statuses, 413, 415, 429, 500, 503])].map((status) => [
      status,
      registryErrorSchema,
    ]),
  ) as Record<ErrorStatus, typeof registryErrorSchema>;

type Security = Array<Record<string, string[]>>;
export const bearerSecurity: Security = [{ apiKey: [] }, { consoleSession: [] }];
export const adminSecurity: Security = [{ adminToken: [] }];

/**
 * A route's validator compiler that leaves its query string to the handler (`queryValidator`), validating
 * every other part as usual: a route answering from a cache keyed by the query's text validates only on a
 * miss (a text answered before was valid). The schema still documents the query in OpenAPI.
 */
export const queryInHandler = (route: FastifyRouteSchemaDef<unknown>) =>
  route.httpPart === 'querystring'
    ? (value: unknown) => ({ value })
    : validatorCompiler(route as FastifyRouteSchemaDef<z.ZodType>);

/**
 * Validates a query string in the handler, failing exactly as Fastify's own validation does (the same error
 * reaches the error handler, answered in the face's shape).
 */
export function queryValidator<T extends z.ZodType>(schema: T): (query: unknown) => z.output<T> {
  const validate = validatorCompiler({ schema, method: 'GET', url: '', httpPart: 'querystring' }) as (
    value: unknown,
  ) => { value?: z.output<T>; error?: unknown };
  return (query) => {
    const result = validate(query);
    if (result.error === undefined) return result.value as z.output<T>;
    throw Object.assign(new Error('querystring failed validation'), {
      statusCode: 400,
      code: 'FST_ERR_VALIDATION',
      validation: result.error,
      validationContext: 'querystring',
    });
  };
}
