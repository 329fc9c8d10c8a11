import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { requirePrincipal } from '../../http/auth.js';
import { ApiError } from '../../http/errors.js';
import { type App, bearerSecurity, registryErrors } from '../../http/route-kit.js';
import { tryParseExpertKey } from '../registry/index.js';
import { keyFromUrl } from './expert-key.js';
import {
  dependentsQuery,
  diffExpertsQuery,
  expertAnswerSchema,
  expertDelegatorsSchema,
  expertDependentsAnswer,
  expertDiffAnswer,
  expertKeyParams,
  expertListSchema,
  expertVersionsSchema,
  listExpertsQuery,
  publishExpertBody,
  updateExpertBody,
} from './registry.schemas.js';
import type { RegistryService } from './registry.service.js';
import { documentationOnly, notModified, readByKey, sendAnswer } from './registry-answers.js';

const tags = ['Registry'];

export function registerRegistryRoutes(app: App, registry: RegistryService): void {
  const getByKey = readByKey(registry);

  app.get('/experts', {
    config: { auth: 'public' },
    schema: {
      operationId: 'listExperts',
      summary: 'List the Experts holding `latest` (newest first unless `sort` and `order` say otherwise)',
      tags,
      security: [],
      querystring: listExpertsQuery,
      response: { 200: expertListSchema, 304: notModified, ...registryErrors() },
    },
    handler: async (request, reply) => sendAnswer(request, reply, await registry.list(request.query)),
  });

  app.get('/experts/:expertKey', {
    config: { auth: 'public' },
    schema: {
      operationId: 'getExpert',
      summary: 'Get an Expert by key: `name`, `name@1.2.3`, `name@latest`, `name@tag`, `@scope/name[@…]`',
      tags,
      security: [],
      params: expertKeyParams,
      response: { 200: expertAnswerSchema, 304: notModified, ...registryErrors(404, 410) },
    },
    validatorCompiler: documentationOnly,
    handler: getByKey,
  });

  app.get('/experts/:expertKey/versions', {
    config: { auth: 'public' },
    schema: {
      operationId: 'getExpertVersions',
      summary: 'All versions of an Expert name (a version part in the key is ignored)',
      tags,
      security: [],
      params: expertKeyParams,
      response: { 200: expertVersionsSchema, 304: notModified, ...registryErrors(404) },
    },
    validatorCompiler: documentationOnly,
    handler: getByKey,
  });

  app.get('/experts/:expertKey/delegators', {
    config: { auth: 'public' },
    schema: {
      operationId: 'getExpertDelegators',
      summary:
        'The versions whose delegates name any version or tag of this Expert name (newest first, at most 100)',
      tags,
      security: [],
      params: expertKeyParams,
      response: { 200: expertDelegatorsSchema, 304: notModified, ...registryErrors() },
    },
    validatorCompiler: documentationOnly,
    handler: getByKey,
  });

  app.get('/diff', {
    config: { auth: 'public' },
    schema: {
      operationId: 'diffExperts',
      summary:
        'What changed between two versions of one Expert name, each change that widens access flagged with why',
      tags,
      security: [],
      querystring: diffExpertsQuery,
      response: { 200: expertDiffAnswer, 304: notModified, ...registryErrors(404, 410) },
    },
    handler: async (request, reply) => {
      const key = (field: 'from' | 'to') => {
        const parsed = tryParseExpertKey(request.query[field]);
        if (!parsed.ok) throw new ApiError('bad_request', `"${field}": ${parsed.reason}`);
        return parsed.key;
      };
      return sendAnswer(request, reply, await registry.diff(key('from'), key('to')));
    },
  });

  app.get('/dependents', {
    config: { auth: 'public' },
    schema: {
      operationId: 'getExpertDependents',
      summary:
        'The versions that delegate to a version, directly and transitively, each with its path (bounded depth and count)',
      tags,
      security: [],
      querystring: dependentsQuery,
      response: { 200: expertDependentsAnswer, 304: notModified, ...registryErrors(404, 410) },
    },
    handler: async (request, reply) => {
      const parsed = tryParseExpertKey(request.query.key);
      if (!parsed.ok) throw new ApiError('bad_request', `"key": ${parsed.reason}`);
      return sendAnswer(request, reply, await registry.dependents(parsed.key));
    },
  });

  // Scoped keys sent unencoded (`/registry/experts/@acme/writer@1.0.0[/versions]`) span two path
  // segments; these undocumented catch-alls hand them to the same handlers.
  app.get('/experts/*', { config: { auth: 'public' }, schema: { hide: true }, handler: getByKey });

  app.post('/experts', {
    config: { auth: 'principal' },
    schema: {
      operationId: 'publishExpert',
      summary:
        'Publish a new version; it becomes `latest` (unless the publish policy holds it for approval; a refused publish is 422 naming every rule broken)',
      tags,
      security: bearerSecurity,
      body: publishExpertBody,
      response: { 200: expertAnswerSchema, ...registryErrors(401, 403, 422) },
    },
    handler: async (request) => ({
      data: { expert: await registry.publish(requirePrincipal(request), request.body) },
    }),
  });

  const updateHandler = async (request: FastifyRequest<{ Body: z.infer<typeof updateExpertBody> }>) => {
    const principal = requirePrincipal(request);
    const { key } = keyFromUrl(request.url, false);
    return { data: { expert: await registry.update(principal, key, request.body) } };
  };
  const updateSchema = {
    operationId: 'updateExpert',
    summary: 'Change the status and/or replace the custom tags of one version',
    tags,
    security: bearerSecurity,
    params: expertKeyParams,
    body: updateExpertBody,
    response: { 200: expertAnswerSchema, ...registryErrors(401, 403, 404, 410) },
  };
  app.post('/experts/:expertKey', {
    config: { auth: 'principal' },
    schema: updateSchema,
    handler: updateHandler,
  });
  app.post('/experts/*', {
    config: { auth: 'principal' },
    schema: { hide: true, body: updateExpertBody },
    handler: updateHandler,
  });

  const deleteHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    const principal = requirePrincipal(request);
    const { key } = keyFromUrl(request.url, false);
    await registry.remove(principal, key);
    return reply.code(200).send();
  };
  app.delete('/experts/:expertKey', {
    config: { auth: 'principal' },
    schema: {
      operationId: 'deleteExpert',
      summary: 'Delete a version (organization owner only); 200 with an empty body',
      tags,
      security: bearerSecurity,
      params: expertKeyParams,
      response: {
        200: z.null().meta({ description: 'Deleted; empty body' }),
        ...registryErrors(401, 403, 404, 410),
      },
    },
    handler: deleteHandler,
  });
  app.delete('/experts/*', {
    config: { auth: 'principal' },
    schema: { hide: true },
    handler: deleteHandler,
  });
}
