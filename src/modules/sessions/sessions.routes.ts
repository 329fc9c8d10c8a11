import { z } from 'zod';
import { unauthorized } from '../../http/auth.js';
import { type CookieOptions, expiredCookie, serializeCookie } from '../../http/cookies.js';
import { CSRF_HEADER } from '../../http/csrf.js';
import { type App, dataOf, managementErrors } from '../../http/route-kit.js';
import { organizationSchema, presentOrganization, presentUser, userSchema } from '../tenancy/index.js';
import { SESSION_COOKIE, type SessionsService } from './sessions.service.js';

const tags = ['Console sessions'];
const sessionSecurity = [{ consoleSession: [] }];

const loginBody = z
  .object({
    email: z.string().trim().min(1).max(254),
    password: z.string().min(1).max(1024),
    organization: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe('Organization id or slug to sign in to; default: the oldest membership'),
  })
  .strict()
  .meta({ id: 'LoginRequest' });

const sessionOrganizationSchema = z
  .object({ id: z.string(), slug: z.string(), name: z.string(), role: z.enum(['owner', 'admin', 'member']) })
  .meta({ id: 'SessionOrganization' });

const switchBody = z
  .object({ organization: z.string().min(1).max(64).describe('Organization id or slug to switch to') })
  .strict()
  .meta({ id: 'SwitchOrganizationRequest' });

const consoleSessionSchema = z
  .object({
    user: userSchema,
    organization: organizationSchema,
    organizations: z
      .array(sessionOrganizationSchema)
      .describe('Every organization the user belongs to, with their role there; oldest membership first'),
    csrfToken: z
      .string()
      .describe(
        `Send it with every state-changing request of this session: as \`csrfToken\` in billing POST bodies, as the ${CSRF_HEADER} header elsewhere`,
      ),
  })
  .meta({ id: 'ConsoleSession' });

const signInHintsSchema = z
  .object({
    demoPassword: z
      .boolean()
      .describe(
        "True while the embedded quick start's demo organization exists and its owner's generated password (in the data directory's bootstrap.json) still signs in",
      ),
  })
  .meta({ id: 'SignInHints' });

export interface SessionRouteOptions {
  /** Adds `Secure` to the cookie (when Cadre is served over https). */
  secureCookie: boolean;
  demoPasswordHint: () => Promise<boolean>;
}

type Described = Awaited<ReturnType<SessionsService['describe']>>;
const present = ({ user, organization, organizations }: Described, csrfToken: string) => ({
  user: presentUser(user),
  organization: presentOrganization(organization),
  organizations,
  csrfToken,
});

export function registerSessionRoutes(
  app: App,
  sessions: SessionsService,
  options: SessionRouteOptions,
): void {
  const cookieOptions: CookieOptions = {
    path: '/',
    httpOnly: true,
    sameSite: 'Lax',
    secure: options.secureCookie,
  };

  app.post('/login', {
    config: { auth: 'public' },
    schema: {
      operationId: 'login',
      summary: 'Sign in to the console with email and password; sets the cadre_session cookie',
      tags,
      security: [],
      body: loginBody,
      response: { 200: dataOf(consoleSessionSchema), ...managementErrors(401, 403, 422) },
    },
    handler: async (request, reply) => {
      const session = await sessions.login(request.body, request.ip);
      reply.header(
        'set-cookie',
        serializeCookie(SESSION_COOKIE, session.token, { ...cookieOptions, expires: session.expiresAt }),
      );
      return { data: present(session, session.csrfToken) };
    },
  });

  app.get('/sign-in-hints', {
    config: { auth: 'public' },
    schema: {
      operationId: 'getSignInHints',
      summary: 'What the sign-in page may tell a visitor (the demo password hint)',
      tags,
      security: [],
      response: { 200: dataOf(signInHintsSchema) },
    },
    handler: async () => ({ data: { demoPassword: await options.demoPasswordHint() } }),
  });

  app.get('/session', {
    config: { auth: 'optional' },
    schema: {
      operationId: 'getSession',
      summary: 'The current console session (401 without one)',
      tags,
      security: sessionSecurity,
      response: { 200: dataOf(consoleSessionSchema), ...managementErrors(401) },
    },
    handler: async (request) => {
      const principal = request.principal;
      if (principal?.kind !== 'session') throw unauthorized('No console session');
      return { data: present(await sessions.describe(principal), principal.csrfToken) };
    },
  });

  app.post('/session/organization', {
    config: { auth: 'optional' },
    schema: {
      operationId: 'switchSessionOrganization',
      summary: `Move the console session to another of the user's organizations (needs the ${CSRF_HEADER} header)`,
      tags,
      security: sessionSecurity,
      body: switchBody,
      response: { 200: dataOf(consoleSessionSchema), ...managementErrors(401, 403, 404, 422) },
    },
    handler: async (request) => {
      const principal = request.principal;
      if (principal?.kind !== 'session') throw unauthorized('No console session');
      const described = await sessions.switchOrganization(principal, request.body.organization);
      return { data: present(described, principal.csrfToken) };
    },
  });

  app.post('/logout', {
    config: { auth: 'optional' },
    schema: {
      operationId: 'logout',
      summary: `End the console session (needs the ${CSRF_HEADER} header); clears the cookie`,
      tags,
      // Optional: without a session there is nothing to end, and the answer is still 200 (cookie cleared).
      security: [...sessionSecurity, {}],
      response: { 200: dataOf(z.object({})), ...managementErrors(401, 403) },
    },
    handler: async (request, reply) => {
      if (request.principal?.kind === 'session') await sessions.revoke(request.principal.sessionId);
      reply.header('set-cookie', expiredCookie(SESSION_COOKIE, cookieOptions));
      return { data: {} };
    },
  });
}
