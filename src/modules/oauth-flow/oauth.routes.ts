import { z } from 'zod';
import { requirePrincipal } from '../../http/auth.js';
import { type App, bearerSecurity, dataOf, managementErrors } from '../../http/route-kit.js';
import { presetSchema } from '../integrations/index.js';
import { PRESET_KEYS } from '../oauth/index.js';
import type { OAuthService } from './oauth.service.js';

const tags = ['OAuth'];
const presetParams = z.object({
  presetKey: z
    .string()
    .min(1)
    .max(64)
    .meta({ description: `OAuth preset: ${PRESET_KEYS.join(', ')}` }),
});
const id = z.string().min(1).max(64);
const redirect = z.null().meta({ description: 'Redirect (see the Location header)' });

export function registerOAuthRoutes(app: App, oauthService: OAuthService): void {
  app.get('/oauth/start/:presetKey', {
    config: { auth: 'principal' },
    schema: {
      operationId: 'startOAuth',
      summary: 'Begin an OAuth flow: 302 to the provider, setting the state cookie (cadre_oauth_state)',
      description:
        'Needs projects:operate on the environment. API clients do not follow the redirect: they keep the ' +
        'Set-Cookie value and open the Location in a browser. The API key is never sent to the provider.',
      tags,
      security: bearerSecurity,
      params: presetParams,
      querystring: z.object({
        projectId: id,
        environmentId: id,
        returnTo: z.string().max(2048).optional().meta({
          description: 'Relative path, or URL on the console origin or CADRE_ALLOWED_RETURN_ORIGINS',
        }),
      }),
      response: { 302: redirect, ...managementErrors(401, 403, 404, 409, 422) },
    },
    handler: async (request, reply) => {
      const { location, setCookie } = await oauthService.start(
        requirePrincipal(request),
        request.params.presetKey,
        request.query,
      );
      return reply.header('set-cookie', setCookie).redirect(location, 302);
    },
  });

  app.get('/v1/oauth/presets', {
    config: { auth: 'principal' },
    schema: {
      operationId: 'listOAuthPresets',
      summary:
        'The providers an integration can be registered for, named as people know them, with the redirect URI to register',
      tags,
      security: bearerSecurity,
      response: { 200: dataOf(z.array(presetSchema)), ...managementErrors(401) },
    },
    handler: async () => ({ data: oauthService.presets() }),
  });

  app.get('/oauth/verify/:presetKey', {
    config: { auth: 'principal' },
    schema: {
      operationId: 'verifyIntegration',
      summary:
        "Verify the organization's integration: 302 to the provider for one test authorization (integrations:manage)",
      description:
        'Like /oauth/start, for no environment: the callback (the same redirect URI) exchanges the code, reads ' +
        'the account, discards the tokens (revoked at the provider when it can) and marks the current version ' +
        'verified: oauth_status=success&verified=true&preset=…&integration_version_id=…. 409 when the ' +
        'organization has no integration for the preset.',
      tags,
      security: bearerSecurity,
      params: presetParams,
      querystring: z.object({
        returnTo: z.string().max(2048).optional().meta({
          description: 'Relative path, or URL on the console origin or CADRE_ALLOWED_RETURN_ORIGINS',
        }),
      }),
      response: { 302: redirect, ...managementErrors(401, 403, 404, 409, 422) },
    },
    handler: async (request, reply) => {
      const { location, setCookie } = await oauthService.startVerification(
        requirePrincipal(request),
        request.params.presetKey,
        request.query,
      );
      return reply.header('set-cookie', setCookie).redirect(location, 302);
    },
  });

  app.get('/oauth/callback/:presetKey', {
    config: { auth: 'principal' },
    schema: {
      operationId: 'completeOAuth',
      summary:
        'Complete an OAuth flow: every outcome is a 302 to returnTo with oauth_status (and clears the state cookie)',
      description:
        'Success: oauth_status=success&connection_id=…&preset=…. Failure: oauth_status=error&oauth_error=' +
        '(access_denied or the provider’s code | invalid_state | state_expired | forbidden | exchange_failed | ' +
        'environment_removed | integration_changed | plan_limit_exceeded)' +
        '[&oauth_error_description=…]. An invalid or missing state cookie redirects to the console root. ' +
        'Tokens the provider issued for a connection that is then not kept are revoked there.',
      tags,
      security: bearerSecurity,
      params: presetParams,
      querystring: z.looseObject({
        code: z.string().max(4096).optional(),
        state: z.string().max(1024).optional(),
        error: z.string().max(256).optional(),
        error_description: z.string().max(2048).optional(),
      }),
      response: { 302: redirect, ...managementErrors(401, 404, 422) },
    },
    handler: async (request, reply) => {
      const params = new URL(request.url, 'http://callback.invalid').searchParams;
      const location = await oauthService.callback(
        requirePrincipal(request),
        request.params.presetKey,
        params,
        request.headers.cookie,
      );
      return reply.header('set-cookie', oauthService.clearStateCookie()).redirect(location, 302);
    },
  });
}
