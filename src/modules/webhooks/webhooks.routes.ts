import { requirePrincipal } from '../../http/auth.js';
import { type App, bearerSecurity, dataOf, managementErrors } from '../../http/route-kit.js';
import type { DeliveriesService } from './deliveries.service.js';
import {
  createEndpointBody,
  deliveryListQuery,
  deliveryListSchema,
  deliverySchema,
  endpointListSchema,
  endpointParams,
  endpointWithSecretSchema,
  resendBody,
  updateEndpointBody,
  webhookEndpointSchema,
} from './webhooks.schemas.js';
import type { WebhooksService } from './webhooks.service.js';

const tags = ['Webhooks'];
const config = { auth: 'principal' } as const;

/** The credential's organization's webhook endpoints (owners and admins: `webhooks:manage`). */
export function registerWebhookRoutes(
  app: App,
  webhooks: WebhooksService,
  deliveries: DeliveriesService,
): void {
  app.get('/v1/webhook-endpoints', {
    config,
    schema: {
      operationId: 'listWebhookEndpoints',
      summary: "The organization's webhook endpoints, oldest first; never their secrets",
      tags,
      security: bearerSecurity,
      response: { 200: endpointListSchema, ...managementErrors(401, 403) },
    },
    handler: async (request) => ({ data: await webhooks.list(requirePrincipal(request)) }),
  });

  app.post('/v1/webhook-endpoints', {
    config,
    schema: {
      operationId: 'createWebhookEndpoint',
      summary: 'Add a webhook endpoint; the answer carries its signing secret (shown once)',
      tags,
      security: bearerSecurity,
      body: createEndpointBody,
      response: { 201: dataOf(endpointWithSecretSchema), ...managementErrors(401, 403, 409, 422, 503) },
    },
    handler: async (request, reply) =>
      reply.code(201).send({ data: await webhooks.create(requirePrincipal(request), request.body) }),
  });

  app.get('/v1/webhook-endpoints/:webhookEndpointId', {
    config,
    schema: {
      operationId: 'getWebhookEndpoint',
      summary: 'One webhook endpoint; never its secret',
      tags,
      security: bearerSecurity,
      params: endpointParams,
      response: { 200: dataOf(webhookEndpointSchema), ...managementErrors(401, 403, 404, 422) },
    },
    handler: async (request) => ({
      data: await webhooks.get(requirePrincipal(request), request.params.webhookEndpointId),
    }),
  });

  app.patch('/v1/webhook-endpoints/:webhookEndpointId', {
    config,
    schema: {
      operationId: 'updateWebhookEndpoint',
      summary: 'Change its URL, event types, description, or enable or disable it',
      tags,
      security: bearerSecurity,
      params: endpointParams,
      body: updateEndpointBody,
      response: { 200: dataOf(webhookEndpointSchema), ...managementErrors(401, 403, 404, 422) },
    },
    handler: async (request) => ({
      data: await webhooks.update(requirePrincipal(request), request.params.webhookEndpointId, request.body),
    }),
  });

  app.delete('/v1/webhook-endpoints/:webhookEndpointId', {
    config,
    schema: {
      operationId: 'deleteWebhookEndpoint',
      summary: 'Delete a webhook endpoint: nothing more is delivered to it',
      tags,
      security: bearerSecurity,
      params: endpointParams,
      response: { 200: dataOf(webhookEndpointSchema), ...managementErrors(401, 403, 404, 422) },
    },
    handler: async (request) => ({
      data: await webhooks.remove(requirePrincipal(request), request.params.webhookEndpointId),
    }),
  });

  app.post('/v1/webhook-endpoints/:webhookEndpointId/rotate-secret', {
    config,
    schema: {
      operationId: 'rotateWebhookEndpointSecret',
      summary: 'A new signing secret (shown once); the previous one keeps signing alongside it for 24 hours',
      tags,
      security: bearerSecurity,
      params: endpointParams,
      response: { 200: dataOf(endpointWithSecretSchema), ...managementErrors(401, 403, 404, 422, 503) },
    },
    handler: async (request) => ({
      data: await webhooks.rotateSecret(requirePrincipal(request), request.params.webhookEndpointId),
    }),
  });

  app.get('/v1/webhook-endpoints/:webhookEndpointId/deliveries', {
    config,
    schema: {
      operationId: 'listWebhookDeliveries',
      summary: "The endpoint's delivery log, newest first: each delivery with every attempt",
      tags,
      security: bearerSecurity,
      params: endpointParams,
      querystring: deliveryListQuery,
      response: { 200: deliveryListSchema, ...managementErrors(401, 403, 404, 422) },
    },
    handler: async (request) =>
      deliveries.list(requirePrincipal(request), request.params.webhookEndpointId, request.query),
  });

  app.post('/v1/webhook-endpoints/:webhookEndpointId/test', {
    config,
    schema: {
      operationId: 'testWebhookEndpoint',
      summary: 'Send a webhook.test event to this endpoint only; the answer is its queued delivery',
      tags,
      security: bearerSecurity,
      params: endpointParams,
      response: { 202: dataOf(deliverySchema), ...managementErrors(401, 403, 404, 409, 422) },
    },
    handler: async (request, reply) =>
      reply.code(202).send({
        data: await deliveries.sendTest(requirePrincipal(request), request.params.webhookEndpointId),
      }),
  });

  app.post('/v1/webhook-endpoints/:webhookEndpointId/resend', {
    config,
    schema: {
      operationId: 'resendWebhookEvent',
      summary:
        "Send one of the organization's events to this endpoint again (the same webhook-id as its earlier delivery)",
      tags,
      security: bearerSecurity,
      params: endpointParams,
      body: resendBody,
      response: { 202: dataOf(deliverySchema), ...managementErrors(401, 403, 404, 409, 422) },
    },
    handler: async (request, reply) =>
      reply.code(202).send({
        data: await deliveries.resend(
          requirePrincipal(request),
          request.params.webhookEndpointId,
          request.body.eventId,
        ),
      }),
  });
}
