import { requirePrincipal } from '../../http/auth.js';
import { type App, bearerSecurity, dataOf, managementErrors } from '../../http/route-kit.js';
import {
  apiKeyIdParams,
  apiKeyListSchema,
  apiKeySchema,
  createApiKeyBody,
  createdApiKeySchema,
  listApiKeysQuery,
} from './api-keys.schemas.js';
import type { ApiKeysService } from './api-keys.service.js';

const tags = ['API keys'];

export function registerApiKeyRoutes(app: App, apiKeys: ApiKeysService): void {
  app.get('/v1/api-keys', {
    config: { auth: 'principal' },
    schema: {
      operationId: 'listApiKeys',
      summary: 'List API keys (newest first); members see their own keys only',
      tags,
      security: bearerSecurity,
      querystring: listApiKeysQuery,
      response: { 200: apiKeyListSchema, ...managementErrors(401, 403, 422) },
    },
    handler: (request) => apiKeys.list(requirePrincipal(request), request.query),
  });

  app.post('/v1/api-keys', {
    config: { auth: 'principal' },
    schema: {
      operationId: 'createApiKey',
      summary: 'Create an API key; its secret is in this answer only',
      tags,
      security: bearerSecurity,
      body: createApiKeyBody,
      response: { 200: dataOf(createdApiKeySchema), ...managementErrors(401, 403, 422) },
    },
    handler: async (request) => ({
      data: await apiKeys.create(requirePrincipal(request), request.body),
    }),
  });

  app.get('/v1/api-keys/:apiKeyId', {
    config: { auth: 'principal' },
    schema: {
      operationId: 'getApiKey',
      summary: 'Get an API key (never its secret)',
      tags,
      security: bearerSecurity,
      params: apiKeyIdParams,
      response: { 200: dataOf(apiKeySchema), ...managementErrors(401, 403, 404, 422) },
    },
    handler: async (request) => ({
      data: await apiKeys.get(requirePrincipal(request), request.params.apiKeyId),
    }),
  });

  app.delete('/v1/api-keys/:apiKeyId', {
    config: { auth: 'principal' },
    schema: {
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key at once, on every instance; revoking again answers the same record',
      tags,
      security: bearerSecurity,
      params: apiKeyIdParams,
      response: { 200: dataOf(apiKeySchema), ...managementErrors(401, 403, 404, 422) },
    },
    handler: async (request) => ({
      data: await apiKeys.revoke(requirePrincipal(request), request.params.apiKeyId),
    }),
  });
}
