import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { requirePrincipal } from '../../http/auth.js';
import { type App, bearerSecurity, registryErrors } from '../../http/route-kit.js';
import { type ExpertDefinition, LATEST_TAG, type McpStdioSkill } from '../registry/index.js';
import { keyFromUrl } from './expert-key.js';
import { needsNewerRuntime, perstackView, toPerstack } from './perstack.presenters.js';
import {
  perstackDeleteAnswer,
  perstackExpertAnswer,
  perstackListAnswer,
  perstackPublishBody,
  perstackUpdateBody,
  perstackVersionsAnswer,
} from './perstack.schemas.js';
import { expertKeyParams, listExpertsQuery } from './registry.schemas.js';
import type { RegistryService } from './registry.service.js';
import { documentationOnly, notModified, readByKey, sendAnswer } from './registry-answers.js';

const tags = ['Perstack-compatible registry'];

/** The registry's error answers, with Perstack's 422 for a request that fails validation (docs/perstack.md). */
const perstackErrors = (...statuses: Parameters<typeof registryErrors>) => registryErrors(422, ...statuses);

/** The base skill Perstack's runtime gives an Expert that names none; added to such a publish here. */
const PERSTACK_BASE_SKILL: [string, McpStdioSkill] = [
  '@perstack/base',
  { type: 'mcpStdioSkill', description: 'Base skill', command: 'npx', packageName: '@perstack/base' },
];

/** What a publish through this face stores: `latest` left to the registry, a base skill always present. */
function publishable(
  body: z.output<typeof perstackPublishBody>,
  baseSkillNames: readonly string[],
): ExpertDefinition {
  const hasBase = baseSkillNames.some((name) => Object.hasOwn(body.skills, name));
  return {
    ...body,
    ...(body.tags ? { tags: body.tags.filter((tag) => tag !== LATEST_TAG) } : {}),
    skills: hasBase ? body.skills : Object.fromEntries([PERSTACK_BASE_SKILL, ...Object.entries(body.skills)]),
  };
}

/**
 * Perstack's client sends `Content-Type: application/json` on every request, a bodiless DELETE included:
 * on this face an empty JSON body is no body (Fastify's own parser, with its prototype-poisoning guards,
 * reads every other).
 */
function acceptEmptyJsonBodies(app: App) {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    return parseJson(request, body as string, done);
  });
}

/**
 * The Perstack-compatible registry face (docs/perstack.md) under `/api/registry/v1`: the registry's own
 * service, rules, permissions, caches and limits, spoken in the wire contract of Perstack's client, runtime
 * and CLI: whole records in lists and versions, `{}` on delete, `latest` allowed among publish tags.
 */
export function registerPerstackRoutes(app: App, registry: RegistryService): void {
  acceptEmptyJsonBodies(app);
  const view = perstackView(registry.baseSkillNames);
  const getByKey = readByKey(registry, view, false);

  app.get('/experts', {
    config: { auth: 'public' },
    schema: {
      operationId: 'perstackListExperts',
      summary: 'List the Experts holding `latest` that run on runtime v1.0, as whole records',
      tags,
      security: [],
      querystring: listExpertsQuery,
      response: { 200: perstackListAnswer, 304: notModified, ...perstackErrors() },
    },
    handler: async (request, reply) => sendAnswer(request, reply, await registry.list(request.query, view)),
  });

  app.get('/experts/:expertKey', {
    config: { auth: 'public' },
    schema: {
      operationId: 'perstackGetExpert',
      summary: 'Get an Expert by key (`name`, `name@1.2.3`, `name@latest`, `name@tag`, `@scope/name[@…]`)',
      tags,
      security: [],
      params: expertKeyParams,
      response: { 200: perstackExpertAnswer, 304: notModified, ...perstackErrors(404, 410) },
    },
    validatorCompiler: documentationOnly,
    handler: getByKey,
  });

  app.get('/experts/:expertKey/versions', {
    config: { auth: 'public' },
    schema: {
      operationId: 'perstackGetExpertVersions',
      summary: 'The versions of an Expert name that run on runtime v1.0, as digests',
      tags,
      security: [],
      params: expertKeyParams,
      response: { 200: perstackVersionsAnswer, 304: notModified, ...perstackErrors(404) },
    },
    validatorCompiler: documentationOnly,
    handler: getByKey,
  });

  // Scoped keys sent unencoded span two path segments: the same handlers, undocumented.
  app.get('/experts/*', { config: { auth: 'public' }, schema: { hide: true }, handler: getByKey });

  app.post('/experts', {
    config: { auth: 'principal' },
    schema: {
      operationId: 'perstackPublishExpert',
      summary:
        'Publish a new version; it becomes `latest` (a `latest` among the tags is accepted as such) unless the publish policy holds it for approval; a refused publish is 422 naming every rule broken',
      tags,
      security: bearerSecurity,
      body: perstackPublishBody,
      response: { 200: perstackExpertAnswer, ...perstackErrors(401, 403) },
    },
    handler: async (request) => {
      const principal = requirePrincipal(request);
      const expert = await registry.publish(principal, publishable(request.body, registry.baseSkillNames));
      return { data: { expert: toPerstack(expert, registry.baseSkillNames) } };
    },
  });

  const updateHandler = async (request: FastifyRequest<{ Body: z.output<typeof perstackUpdateBody> }>) => {
    const principal = requirePrincipal(request);
    const { key } = keyFromUrl(request.url, false);
    const { tags: named, ...change } = request.body;
    const expert = await registry.update(
      principal,
      key,
      { ...change, ...(named ? { tags: named.filter((tag) => tag !== LATEST_TAG) } : {}) },
      {
        latestNamed: named?.includes(LATEST_TAG) ?? false,
        // Its answer could not describe the version: refused before anything changes.
        assertServable: (record) => {
          if (!record.runsOnV1_0) {
            throw needsNewerRuntime(`${record.name}@${record.version}`, record.minRuntimeVersion);
          }
        },
      },
    );
    return { data: { expert: toPerstack(expert, registry.baseSkillNames) } };
  };
  app.post('/experts/:expertKey', {
    config: { auth: 'principal' },
    schema: {
      operationId: 'perstackUpdateExpert',
      summary: 'Change the status and/or replace the custom tags of one version',
      tags,
      security: bearerSecurity,
      params: expertKeyParams,
      body: perstackUpdateBody,
      response: { 200: perstackExpertAnswer, ...perstackErrors(401, 403, 404, 410) },
    },
    handler: updateHandler,
  });
  app.post('/experts/*', {
    config: { auth: 'principal' },
    schema: { hide: true, body: perstackUpdateBody },
    handler: updateHandler,
  });

  const deleteHandler = async (request: FastifyRequest) => {
    await registry.remove(requirePrincipal(request), keyFromUrl(request.url, false).key);
    return {};
  };
  app.delete('/experts/:expertKey', {
    config: { auth: 'principal' },
    schema: {
      operationId: 'perstackDeleteExpert',
      summary: 'Delete a version (organization owner only); answers `{}`',
      tags,
      security: bearerSecurity,
      params: expertKeyParams,
      response: { 200: perstackDeleteAnswer, ...perstackErrors(401, 403, 404, 410) },
    },
    handler: deleteHandler,
  });
  app.delete('/experts/*', { config: { auth: 'principal' }, schema: { hide: true }, handler: deleteHandler });
}
