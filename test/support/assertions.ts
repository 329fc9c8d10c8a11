import { expect } from 'vitest';
import type { HttpResult } from './http.js';

/** A management error: the status, the code, and the full documented envelope with a request id. */
export function expectApiError(res: HttpResult, status: number, code: string): void {
  expect({ status: res.status, code: (res.body as { error?: { code?: string } }).error?.code }).toEqual({
    status,
    code,
  });
  expect(res.headers.get('content-type')).toContain('application/json');
  const error = (res.body as { error: Record<string, unknown> }).error;
  expect(error).toMatchObject({ code, message: expect.any(String), requestId: expect.any(String) });
  expect(error.requestId).toBe(res.headers.get('x-request-id'));
  expect(res.text).not.toMatch(/at .+\.(ts|js):\d+/);
}

/** A registry error: `{ code, error, reason }`. */
export function expectRegistryError(res: HttpResult, status: number): void {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ code: status, error: expect.any(String), reason: expect.any(String) });
}
