import { requirePrincipal } from '../../http/auth.js';
import { type App, bearerSecurity, managementErrors } from '../../http/route-kit.js';
import {
  approvalParams,
  approvalsAnswer,
  approvalsQuery,
  decisionAnswer,
  publishPolicyAnswer,
  publishPolicyChangeBody,
} from './policy.schemas.js';
import type { PolicyService } from './policy.service.js';

const tags = ['Publish policy'];
const config = { auth: 'principal' } as const;

/**
 * The credential's organization's publish policy and the versions awaiting approval under it, in the
 * management face (docs/registry.md "Publish policies").
 */
export function registerPolicyRoutes(app: App, policies: PolicyService): void {
  app.get('/v1/organization/publish-policy', {
    config,
    schema: {
      operationId: 'getPublishPolicy',
      summary: "The organization's publish policy (every member: publish-policy:read)",
      tags,
      security: bearerSecurity,
      response: { 200: publishPolicyAnswer, ...managementErrors(401, 403) },
    },
    handler: async (request) => ({ data: await policies.read(requirePrincipal(request)) }),
  });

  app.put('/v1/organization/publish-policy', {
    config,
    schema: {
      operationId: 'updatePublishPolicy',
      summary:
        'Change rules of the publish policy, or apply a preset (owners and admins: publish-policy:manage)',
      description:
        'Each rule named replaces its value; rules not named keep theirs. `preset: "recommended"` sets ' +
        'allowedCommands to npx and uvx (rules named in the same body win). Audited as publish_policy.updated.',
      tags,
      security: bearerSecurity,
      body: publishPolicyChangeBody,
      response: { 200: publishPolicyAnswer, ...managementErrors(401, 403, 422) },
    },
    handler: async (request) => ({ data: await policies.update(requirePrincipal(request), request.body) }),
  });

  app.get('/v1/registry/approvals', {
    config,
    schema: {
      operationId: 'listRegistryApprovals',
      summary:
        'Versions of the organization awaiting approval (or, with status, approved or rejected ones), each with its diff summary',
      tags,
      security: bearerSecurity,
      querystring: approvalsQuery,
      response: { 200: approvalsAnswer, ...managementErrors(401, 403, 422) },
    },
    handler: async (request) => {
      const approvals = await policies.listApprovals(requirePrincipal(request), request.query.status);
      return { data: { approvals }, meta: { total: approvals.length, limit: 100 } };
    },
  });

  for (const decision of ['approve', 'reject'] as const) {
    app.post(`/v1/registry/approvals/:approvalId/${decision}`, {
      config,
      schema: {
        operationId: decision === 'approve' ? 'approveRegistryVersion' : 'rejectRegistryVersion',
        summary:
          decision === 'approve'
            ? 'Approve a version awaiting approval: it takes `latest` if still the newest that may (experts:approve; not its publisher)'
            : 'Reject a version awaiting approval: it stays published, never `latest` (experts:approve; not its publisher)',
        description:
          'Two decisions on one approval: the first wins, the second answers 409 naming what happened. The ' +
          "publisher's own version is refused (403). Another organization's approval reads as absent (404).",
        tags,
        security: bearerSecurity,
        params: approvalParams,
        response: { 200: decisionAnswer, ...managementErrors(401, 403, 404, 409, 422) },
      },
      handler: async (request) => ({
        data: await policies.decide(requirePrincipal(request), request.params.approvalId, decision),
      }),
    });
  }
}
