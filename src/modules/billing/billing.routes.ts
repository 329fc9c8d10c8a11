import type { FastifyRequest } from 'fastify';
import { requirePrincipal } from '../../http/auth.js';
import {
  type App,
  bearerSecurity,
  dataOf,
  managementErrors,
  preSerialized,
  sendSerialized,
} from '../../http/route-kit.js';
import type { Permission } from '../auth/index.js';
import { idempotencyKeyOf, sendIdempotent } from '../idempotency/index.js';
import {
  checkoutBody,
  checkoutSessionSchema,
  idempotencyHeaders,
  organizationParams,
  planListSchema,
  portalBody,
  portalSessionSchema,
  subscriptionSchema,
  usageSchema,
} from './billing.schemas.js';
import type { BillingService } from './billing.service.js';

const tags = ['Billing'];

interface BillingRouteOptions {
  /**
   * Where the local provider's pages are reached: CADRE_PUBLIC_URL, else the address the server listens
   * on. Never the request's Host header, which the client chooses.
   */
  publicUrl: () => string;
}

export function registerBillingRoutes(app: App, billing: BillingService, options: BillingRouteOptions): void {
  /** The caller's own organization named in the path (any other reads 404), once `permission` is allowed on it. */
  const onOwnOrganization = async (request: FastifyRequest, idOrSlug: string, permission: Permission) => {
    const principal = requirePrincipal(request);
    const organization = await billing.ownOrganization(principal, idOrSlug, permission);
    return { organization, principal };
  };
  const baseUrl = () => options.publicUrl().replace(/\/+$/, '');

  // Serialized once per catalogue (it changes only when CADRE_PLANS_FILE is read again, on SIGHUP).
  let serialized: { version: number; answer: ReturnType<typeof preSerialized> } | undefined;
  const plansAnswer = () => {
    const version = billing.plansVersion();
    if (serialized?.version !== version)
      serialized = {
        version,
        answer: preSerialized(dataOf(planListSchema), { data: { plans: billing.plans() } }),
      };
    return serialized.answer;
  };
  app.get('/v1/billing/plans', {
    config: { auth: 'principal', apiQuota: false },
    schema: {
      operationId: 'listBillingPlans',
      summary: 'All active subscription plans, provider-neutral, cheapest first',
      tags,
      security: bearerSecurity,
      response: { 200: dataOf(planListSchema), ...managementErrors(401, 403) },
    },
    handler: async (request, reply) => {
      billing.assertCanReadPlans(requirePrincipal(request));
      return sendSerialized(reply, plansAnswer());
    },
  });

  app.post('/v1/organizations/:organizationIdOrSlug/billing/checkout', {
    config: { auth: 'principal', csrf: 'body', apiQuota: false },
    schema: {
      operationId: 'createCheckoutSession',
      summary: 'Create a payment-provider checkout session (idempotent on the Idempotency-Key header)',
      tags,
      security: bearerSecurity,
      params: organizationParams,
      headers: idempotencyHeaders,
      body: checkoutBody,
      response: { 200: dataOf(checkoutSessionSchema), ...managementErrors(401, 403, 404, 409, 422) },
    },
    handler: async (request, reply) => {
      const { organization, principal } = await onOwnOrganization(
        request,
        request.params.organizationIdOrSlug,
        'billing:manage',
      );
      const key = idempotencyKeyOf(request);
      const { planKey, successUrl, cancelUrl } = request.body;
      const input = { planKey, successUrl, cancelUrl };
      const answer = await billing.checkout(principal, organization.id, input, key, baseUrl());
      return sendIdempotent(reply, answer);
    },
  });

  app.post('/v1/organizations/:organizationIdOrSlug/billing/portal', {
    config: { auth: 'principal', csrf: 'body', apiQuota: false },
    schema: {
      operationId: 'createPortalSession',
      summary: 'Create a customer portal session (idempotent on the Idempotency-Key header)',
      tags,
      security: bearerSecurity,
      params: organizationParams,
      headers: idempotencyHeaders,
      body: portalBody,
      response: { 200: dataOf(portalSessionSchema), ...managementErrors(401, 403, 404, 409, 422) },
    },
    handler: async (request, reply) => {
      const { organization, principal } = await onOwnOrganization(
        request,
        request.params.organizationIdOrSlug,
        'billing:manage',
      );
      const key = idempotencyKeyOf(request);
      const input = { returnUrl: request.body.returnUrl };
      const answer = await billing.portal(principal, organization.id, input, key, baseUrl());
      return sendIdempotent(reply, answer);
    },
  });

  app.get('/v1/organizations/:organizationIdOrSlug/billing/subscription', {
    config: { auth: 'principal', apiQuota: false },
    schema: {
      operationId: 'getBillingSubscription',
      summary: "The organization's provider-neutral subscription projection",
      tags,
      security: bearerSecurity,
      params: organizationParams,
      response: { 200: dataOf(subscriptionSchema), ...managementErrors(401, 403, 404, 422) },
    },
    handler: async (request) => {
      const { organization } = await onOwnOrganization(
        request,
        request.params.organizationIdOrSlug,
        'billing:read',
      );
      return { data: await billing.subscription(organization.id) };
    },
  });

  app.get('/v1/organizations/:organizationIdOrSlug/billing/usage', {
    config: { auth: 'principal', apiQuota: false },
    schema: {
      operationId: 'getBillingUsage',
      summary: "Usage counters for the organization's current billing period, each with its plan limit",
      tags,
      security: bearerSecurity,
      params: organizationParams,
      response: { 200: dataOf(usageSchema), ...managementErrors(401, 403, 404, 422) },
    },
    handler: async (request) => {
      const { organization } = await onOwnOrganization(
        request,
        request.params.organizationIdOrSlug,
        'billing:read',
      );
      return { data: await billing.usage(organization.id) };
    },
  });
}
