import { z } from 'zod';
import { requirePrincipal } from '../../http/auth.js';
import { addressKey } from '../../http/client-address.js';
import { type CookieOptions, expiredCookie, readCookie, serializeCookie } from '../../http/cookies.js';
import type { OwnBudgetCheck } from '../../http/rate-limit/rate-limit.js';
import { type App, bearerSecurity, dataOf, managementErrors } from '../../http/route-kit.js';
import { SESSION_COOKIE } from '../sessions/index.js';
import { enforcementBody, providerAnswer, providerBody, testStartBody } from './provider.schemas.js';
import type { ProviderService } from './provider.service.js';
import { SignInRefused, type SignInService } from './sign-in.service.js';

const tags = ['Single sign-on'];
const config = { auth: 'principal' } as const;
const redirect = z.null().meta({ description: 'Redirect (see the Location header)' });

/** Binds a sign-in's callback to the browser that started it (docs/sso.md, "Signing in"). */
const SSO_BROWSER_COOKIE = 'cadre_sso';
const BROWSER_COOKIE_MAX_AGE_S = 600;

export interface SsoRouteOptions {
  secureCookie: boolean;
  consoleUrl: () => string;
  rateLimit: OwnBudgetCheck;
}

const cookieOptions = (secure: boolean): CookieOptions => ({
  path: '/auth/sso',
  httpOnly: true,
  sameSite: 'Lax',
  secure,
});

/** The provider's settings, enforcement and the test sign-in, in the management face. */
export function registerProviderRoutes(
  app: App,
  providers: ProviderService,
  signIns: SignInService,
  options: SsoRouteOptions,
) {
  // Enforcement and the test first: the provider's own path (with its DELETE) is listed last.
  app.put('/v1/sso/enforcement', {
    config,
    schema: {
      operationId: 'updateSsoEnforcement',
      summary:
        'Enforce single sign-on for the verified domains’ people, naming break-glass owners (organization:manage)',
      description:
        '409 until a test sign-in succeeded. Audited as sso.enforcement_changed. API keys keep working.',
      tags,
      security: bearerSecurity,
      body: enforcementBody,
      response: { 200: providerAnswer, ...managementErrors(401, 403, 404, 409, 422, 503) },
    },
    handler: async (request) => ({
      data: await providers.setEnforcement(requirePrincipal(request), request.body),
    }),
  });

  app.post('/v1/sso/provider/test', {
    config,
    schema: {
      operationId: 'startSsoTest',
      summary:
        'Start a test sign-in through the provider: open the answered URL in this browser (organization:manage)',
      description:
        'Sets the cadre_sso cookie binding the callback to this browser. A success records the test ' +
        '(sso.test_succeeded) and lands on returnTo with sso=tested; nobody is signed in by it.',
      tags,
      security: bearerSecurity,
      body: testStartBody,
      response: {
        200: dataOf(z.object({ authorizationUrl: z.string() })),
        ...managementErrors(401, 403, 404, 422, 503),
      },
    },
    handler: async (request, reply) => {
      const started = await signIns.startTest(requirePrincipal(request), request.body.returnTo);
      reply.header(
        'set-cookie',
        serializeCookie(SSO_BROWSER_COOKIE, started.browser, {
          ...cookieOptions(options.secureCookie),
          maxAgeS: BROWSER_COOKIE_MAX_AGE_S,
        }),
      );
      return { data: { authorizationUrl: started.authorizationUrl } };
    },
  });

  app.get('/v1/sso/provider', {
    config,
    schema: {
      operationId: 'getSsoProvider',
      summary: "The organization's identity provider (organization:manage); 404 when none is registered",
      tags,
      security: bearerSecurity,
      response: { 200: providerAnswer, ...managementErrors(401, 403, 404, 503) },
    },
    handler: async (request) => ({ data: await providers.get(requirePrincipal(request)) }),
  });

  app.put('/v1/sso/provider', {
    config,
    schema: {
      operationId: 'updateSsoProvider',
      summary:
        'Register or change the identity provider: issuer, client id, write-only client secret (organization:manage)',
      description:
        'The issuer’s discovery document is read at once through the outbound guard (422 at issuer when it ' +
        'fails). A new issuer or client clears the test sign-in and turns enforcement off. Audited as ' +
        'sso.provider_created or sso.provider_updated (never with the secret).',
      tags,
      security: bearerSecurity,
      body: providerBody,
      response: { 200: providerAnswer, ...managementErrors(401, 403, 422, 503) },
    },
    handler: async (request) => ({ data: await providers.put(requirePrincipal(request), request.body) }),
  });

  app.delete('/v1/sso/provider', {
    config,
    schema: {
      operationId: 'deleteSsoProvider',
      summary: 'Remove the identity provider, and with it enforcement (organization:manage)',
      description: 'Audited as sso.provider_removed.',
      tags,
      security: bearerSecurity,
      response: { 200: dataOf(z.object({})), ...managementErrors(401, 403, 404, 503) },
    },
    handler: async (request) => {
      await providers.remove(requirePrincipal(request));
      return { data: {} };
    },
  });
}

/** Signing in through the provider, in the auth face (`/auth/sso/…`). */
export function registerSignInRoutes(
  app: App,
  signIns: SignInService,
  options: SsoRouteOptions & { sessionCookie: CookieOptions },
) {
  const consolePath = (path: string) => new URL(path, options.consoleUrl()).href;

  app.get('/sso/route', {
    config: { auth: 'public' },
    schema: {
      operationId: 'getSsoRoute',
      summary: 'Does this email address sign in through single sign-on? (the sign-in page asks first)',
      tags,
      security: [],
      querystring: z.object({ email: z.string().trim().min(3).max(254) }),
      response: { 200: dataOf(z.object({ sso: z.boolean() })), ...managementErrors(422) },
    },
    handler: async (request) => ({ data: await signIns.routeFor(request.query.email) }),
  });

  app.get('/sso/start', {
    config: { auth: 'public' },
    schema: {
      operationId: 'startSsoSignIn',
      summary: 'Sign in through single sign-on: 302 to the identity provider (by email or organization)',
      description:
        'An email at an organization’s verified domain goes to that organization’s provider; `organization` ' +
        '(id or slug) is the organization’s own sign-in link. 404 when neither leads to a provider. Sets the ' +
        'cadre_sso cookie binding the callback to this browser. Starts have a budget of their own per client ' +
        'address (429 past it).',
      tags,
      security: [],
      querystring: z.object({
        email: z.string().trim().min(3).max(254).optional(),
        organization: z.string().min(1).max(64).optional(),
        returnTo: z.string().max(2048).optional().meta({ description: 'A path of the console (default /)' }),
      }),
      response: { 302: redirect, ...managementErrors(404, 422, 429, 503) },
    },
    // Each start writes a pending sign-in: a budget of its own per client address, tighter than reads'.
    onRequest: async (request, reply) => {
      const refusal = await options.rateLimit('sso_start', addressKey(request.ip), request, reply);
      if (refusal) throw refusal;
    },
    handler: async (request, reply) => {
      const started = await signIns.start(request.query);
      return reply
        .header(
          'set-cookie',
          serializeCookie(SSO_BROWSER_COOKIE, started.browser, {
            ...cookieOptions(options.secureCookie),
            maxAgeS: BROWSER_COOKIE_MAX_AGE_S,
          }),
        )
        .redirect(started.authorizationUrl, 302);
    },
  });

  app.get('/sso/callback', {
    config: { auth: 'public' },
    schema: {
      operationId: 'completeSsoSignIn',
      summary: 'The identity provider’s redirect back: every outcome is a 302 to the console',
      description:
        'Success: the console session cookie is set and the browser lands on the sign-in’s return path (a ' +
        'test: with sso=tested). Failure: /sign-in?sso_error=(invalid_state | email_not_verified | ' +
        'domain_not_verified | invalid_id_token | provider_error | unreachable | not_configured).',
      tags,
      security: [],
      querystring: z.looseObject({}),
      response: { 302: redirect },
    },
    handler: async (request, reply) => {
      const browser = readCookie(request.headers.cookie, SSO_BROWSER_COOKIE);
      reply.header('set-cookie', expiredCookie(SSO_BROWSER_COOKIE, cookieOptions(options.secureCookie)));
      const callback = new URL(request.url, 'http://callback.invalid');
      try {
        const outcome = await signIns.complete(callback, browser);
        if (!outcome.session) {
          const landing = new URL(consolePath(outcome.returnTo));
          landing.searchParams.set('sso', 'tested');
          return reply.redirect(landing.href, 302);
        }
        reply.header(
          'set-cookie',
          serializeCookie(SESSION_COOKIE, outcome.session.token, {
            ...options.sessionCookie,
            expires: outcome.session.expiresAt,
          }),
        );
        return reply.redirect(consolePath(outcome.returnTo), 302);
      } catch (error) {
        if (!(error instanceof SignInRefused)) throw error;
        request.log.info({ ssoError: error.code, reason: error.message }, 'a single sign-on was refused');
        return reply.redirect(consolePath(`/sign-in?sso_error=${encodeURIComponent(error.code)}`), 302);
      }
    },
  });
}
