import { requirePrincipal } from '../../http/auth.js';
import { type App, bearerSecurity, dataOf, managementErrors } from '../../http/route-kit.js';
import {
  claimDomainBody,
  domainListSchema,
  domainParams,
  domainSchema,
  verifyDomainBody,
} from './domains.schemas.js';
import type { DomainsService } from './domains.service.js';

const tags = ['Domains'];
const config = { auth: 'principal' } as const;

/** The credential's organization's email domains (docs/domains.md). */
export function registerDomainRoutes(app: App, domains: DomainsService): void {
  app.get('/v1/domains', {
    config,
    schema: {
      operationId: 'listDomains',
      summary: "The organization's claimed email domains with their proof and status, oldest first",
      tags,
      security: bearerSecurity,
      response: { 200: domainListSchema, ...managementErrors(401, 403) },
    },
    handler: async (request) => ({ data: await domains.list(requirePrincipal(request)) }),
  });

  app.post('/v1/domains', {
    config,
    schema: {
      operationId: 'claimDomain',
      summary: 'Claim an email domain; the answer says which TXT record (or file) proves it',
      tags,
      security: bearerSecurity,
      body: claimDomainBody,
      response: { 201: dataOf(domainSchema), ...managementErrors(401, 403, 409, 422) },
    },
    handler: async (request, reply) =>
      reply.code(201).send({ data: await domains.claim(requirePrincipal(request), request.body) }),
  });

  app.get('/v1/domains/:domainId', {
    config,
    schema: {
      operationId: 'getDomain',
      summary: 'One claimed domain',
      tags,
      security: bearerSecurity,
      params: domainParams,
      response: { 200: dataOf(domainSchema), ...managementErrors(401, 403, 404, 422) },
    },
    handler: async (request) => ({
      data: await domains.get(requirePrincipal(request), request.params.domainId),
    }),
  });

  app.post('/v1/domains/:domainId/verify', {
    config,
    schema: {
      operationId: 'verifyDomain',
      summary:
        'Check the proof now: verified when it holds, else still pending with what was found in lastError; 409 when another organization holds the domain verified',
      tags,
      security: bearerSecurity,
      params: domainParams,
      body: verifyDomainBody,
      response: { 200: dataOf(domainSchema), ...managementErrors(401, 403, 404, 409, 422) },
    },
    handler: async (request) => ({
      data: await domains.verify(requirePrincipal(request), request.params.domainId, request.body.method),
    }),
  });

  app.delete('/v1/domains/:domainId', {
    config,
    schema: {
      operationId: 'deleteDomain',
      summary: 'Give up a claimed domain: it routes nothing to this organization any more',
      tags,
      security: bearerSecurity,
      params: domainParams,
      response: { 200: dataOf(domainSchema), ...managementErrors(401, 403, 404, 422) },
    },
    handler: async (request) => ({
      data: await domains.remove(requirePrincipal(request), request.params.domainId),
    }),
  });
}
