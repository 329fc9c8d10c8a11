import { z } from 'zod';
import { unauthorized } from '../../http/auth.js';
import { CSRF_HEADER } from '../../http/csrf.js';
import { type App, dataOf, managementErrors } from '../../http/route-kit.js';
import type { Principal, SessionPrincipal } from '../auth/index.js';
import {
  approveCliLoginBody,
  cliLoginSchema,
  cliLoginStartedSchema,
  cliLoginStatusSchema,
  pollCliLoginBody,
  startCliLoginBody,
} from './cli-logins.schemas.js';
import type { CliLoginsService } from './cli-logins.service.js';

const tags = ['CLI sign-in'];
const sessionSecurity = [{ consoleSession: [] }];
const params = z.object({ userCode: z.string().min(1).max(32) });

/** The signed-in console session, or 401 (an API key cannot approve a sign-in). */
function sessionOf(principal: Principal | null): SessionPrincipal {
  if (principal?.kind !== 'session') throw unauthorized('Sign in to the console to approve');
  return principal;
}

export function registerCliLoginRoutes(app: App, service: CliLoginsService): void {
  app.post('/cli-logins', {
    config: { auth: 'public' },
    schema: {
      operationId: 'startCliLogin',
      summary: '`cadre login`: ask for a key a signed-in person will approve in the console',
      tags,
      security: [],
      body: startCliLoginBody,
      response: { 200: dataOf(cliLoginStartedSchema), ...managementErrors(422) },
    },
    handler: async (request) => ({ data: await service.start(request.body) }),
  });

  app.post('/cli-logins/poll', {
    config: { auth: 'public' },
    schema: {
      operationId: 'pollCliLogin',
      summary: 'Whether a `cadre login` request was approved, denied or has expired',
      tags,
      security: [],
      body: pollCliLoginBody,
      response: { 200: dataOf(cliLoginStatusSchema), ...managementErrors(404, 422) },
    },
    handler: async (request) => ({ data: await service.poll(request.body.deviceCode) }),
  });

  app.get('/cli-logins/:userCode', {
    config: { auth: 'optional' },
    schema: {
      operationId: 'getCliLogin',
      summary: 'A pending `cadre login` request, by the code the CLI printed',
      tags,
      security: sessionSecurity,
      params,
      response: { 200: dataOf(cliLoginSchema), ...managementErrors(401, 404, 409, 422) },
    },
    handler: async (request) => {
      sessionOf(request.principal);
      return { data: await service.read(request.params.userCode) };
    },
  });

  app.post('/cli-logins/:userCode/approve', {
    config: { auth: 'optional' },
    schema: {
      operationId: 'approveCliLogin',
      summary: `Approve a \`cadre login\`: the CLI's key is created for you (needs the ${CSRF_HEADER} header)`,
      tags,
      security: sessionSecurity,
      params,
      body: approveCliLoginBody,
      response: {
        200: dataOf(z.object({ apiKeyId: z.string() })),
        ...managementErrors(401, 403, 404, 409, 422),
      },
    },
    handler: async (request) => ({
      data: await service.approve(sessionOf(request.principal), request.params.userCode, request.body),
    }),
  });

  app.post('/cli-logins/:userCode/deny', {
    config: { auth: 'optional' },
    schema: {
      operationId: 'denyCliLogin',
      summary: `Refuse a \`cadre login\` (needs the ${CSRF_HEADER} header)`,
      tags,
      security: sessionSecurity,
      params,
      response: {
        200: dataOf(z.object({ status: z.literal('denied') })),
        ...managementErrors(401, 403, 404, 409, 422),
      },
    },
    handler: async (request) => {
      sessionOf(request.principal);
      return { data: await service.deny(request.params.userCode) };
    },
  });
}
