import { z } from 'zod';
import { requirePrincipal } from '../../http/auth.js';
import { type App, bearerSecurity, dataOf, managementErrors } from '../../http/route-kit.js';
import { organizationSchema } from '../tenancy/index.js';
import { changePasswordBody, updateMeBody, updateOrganizationBody } from './account.schemas.js';
import type { AccountService } from './account.service.js';
import { meSchema, orgParams } from './organization.schemas.js';
import type { OrganizationService } from './organization.service.js';

const tags = ['Organization'];
const config = { auth: 'principal' } as const;

/** Account settings: the caller's own name and password, the organization's name (owner). */
export function registerAccountRoutes(app: App, account: AccountService, organization: OrganizationService) {
  app.patch('/v1/me', {
    config,
    schema: {
      operationId: 'updateMe',
      summary: 'Change your own name (any credential)',
      tags,
      security: bearerSecurity,
      body: updateMeBody,
      response: { 200: dataOf(meSchema), ...managementErrors(401, 403, 422) },
    },
    handler: async (request) => {
      const principal = requirePrincipal(request);
      await account.rename(principal, request.body.name);
      return { data: await organization.me(principal) };
    },
  });

  app.post('/v1/me/password', {
    config,
    schema: {
      operationId: 'changePassword',
      summary: 'Change your own console password: the current one is required; your other sessions end',
      description:
        'A wrong currentPassword is 422 (details: currentPassword) and counts against the login throttle ' +
        '(429 past it). A console session making the change stays signed in; every other session of the ' +
        'user ends. API keys are not affected.',
      tags,
      security: bearerSecurity,
      body: changePasswordBody,
      response: { 200: dataOf(z.object({})), ...managementErrors(401, 403, 422) },
    },
    handler: async (request) => {
      await account.changePassword(requirePrincipal(request), request.body, request.ip);
      return { data: {} };
    },
  });

  app.patch('/v1/organizations/:org', {
    config,
    schema: {
      operationId: 'updateOrganization',
      summary: 'Rename the organization (organization:manage: the owner)',
      description: 'The slug, which names its Experts in the registry, does not change.',
      tags,
      security: bearerSecurity,
      params: orgParams,
      body: updateOrganizationBody,
      response: { 200: dataOf(organizationSchema), ...managementErrors(401, 403, 404, 422) },
    },
    handler: async (request) => ({
      data: await account.renameOrganization(
        requirePrincipal(request),
        request.params.org,
        request.body.name,
      ),
    }),
  });
}
