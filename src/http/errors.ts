import { STATUS_CODES } from 'node:http';
import { z } from 'zod';

export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  csrf_token_invalid: 403,
  plan_limit_exceeded: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  invitation_expired: 410,
  invitation_revoked: 410,
  invitation_used: 410,
  idempotency_key_in_use: 409,
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  validation_failed: 422,
  publish_policy_violation: 422,
  rate_limited: 429,
  headers_too_large: 431,
  foreign_resource_rate_limited: 429,
  concurrency_limited: 429,
  plan_quota_exceeded: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  path: string;
  message: string;
}

/** The one error type. Services throw it; the error handler turns it into the documented shape. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = ERROR_STATUS[code];
  }
}

export const notFound = (what: string) => new ApiError('not_found', `${what} not found`);
export const forbidden = (message = 'You do not have permission to perform this action') =>
  new ApiError('forbidden', message);

/** The `cause` of a 403 for what another organization owns (Perstack's face answers that 400). */
export const ANOTHER_ORGANIZATION = 'another_organization';
/** 403: the resource (an Expert, a name) belongs to another organization. */
export const anotherOrganizations = (message: string): ApiError => {
  const error = forbidden(message);
  error.cause = ANOTHER_ORGANIZATION;
  return error;
};
/**
 * 503 with Retry-After. `cause` names why in a word (`database_down`, `event_loop`, `deadline`…): the
 * refusal metrics count by it (docs/operations.md).
 */
export const serviceUnavailable = (
  message: string,
  retryAfterS: number,
  cause: string,
  headers: Record<string, string> = {},
): ApiError => {
  const error = new ApiError('service_unavailable', message, undefined, {
    'Retry-After': String(retryAfterS),
    ...headers,
  });
  error.cause = cause;
  return error;
};
/**
 * 429 with Retry-After: `rate_limited`, or `foreign_resource_rate_limited` (fix the id, do not retry).
 * `cause` names the limit in a word for the refusal metrics (`credential_read`, `auth_failures`, `login`…).
 */
export const tooManyRequests = (
  message: string,
  retryAfterS: number,
  cause?: string,
  code: 'rate_limited' | 'foreign_resource_rate_limited' | 'concurrency_limited' = 'rate_limited',
): ApiError => {
  const error = new ApiError(code, message, undefined, { 'Retry-After': String(retryAfterS) });
  if (cause) error.cause = cause;
  return error;
};

/** An error the client may retry after `retryAfterS` seconds (a conflict that resolves by itself). */
export const retryLater = (code: ErrorCode, message: string, retryAfterS: number): ApiError =>
  new ApiError(code, message, undefined, { 'Retry-After': String(retryAfterS) });

export const validationFailed = (path: string, message: string) =>
  new ApiError('validation_failed', 'Request validation failed', [{ path, message }]);

export const managementErrorSchema = z
  .object({
    error: z.object({
      code: z
        .enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]])
        .meta({ example: 'validation_failed' }),
      message: z.string(),
      requestId: z.string(),
      details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    }),
  })
  .meta({ id: 'PublicApiError', description: 'Error body of every management, admin and auth endpoint.' });

export const registryErrorSchema = z
  .object({
    code: z.number().int().meta({ example: 404 }),
    error: z.string().meta({ example: 'Not Found' }),
    reason: z.string().meta({ example: 'Expert my-expert@9.9.9 not found' }),
  })
  .meta({ id: 'RegistryError', description: 'Error body of every registry endpoint.' });

export const statusText = (status: number): string => STATUS_CODES[status] ?? 'Error';
