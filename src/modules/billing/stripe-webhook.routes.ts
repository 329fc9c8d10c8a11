import { z } from 'zod';
import type { App } from '../../http/route-kit.js';
import { dataOf, managementErrors } from '../../http/route-kit.js';
import type { createStripeWebhookHandler } from './stripe-webhooks.js';

const webhookAnswerSchema = z
  .object({ received: z.boolean(), duplicate: z.boolean() })
  .meta({ id: 'WebhookReceipt' });

/**
 * `POST /api/v1/billing/webhooks/stripe`. The signature covers the exact bytes Stripe sent, so this route
 * (in its own encapsulated scope) takes the body as a raw Buffer instead of parsed JSON.
 */
export function registerStripeWebhookRoute(
  app: App,
  handler: ReturnType<typeof createStripeWebhookHandler>,
): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    scope.post('/v1/billing/webhooks/stripe', {
      config: { auth: 'public' },
      schema: {
        operationId: 'receiveStripeWebhook',
        summary:
          'Stripe webhook endpoint (signed with the endpoint secret; duplicates are acknowledged and ignored)',
        tags: ['Billing'],
        security: [],
        response: { 200: dataOf(webhookAnswerSchema), ...managementErrors(400) },
      },
      handler: async (request) => {
        const signature = request.headers['stripe-signature'];
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const outcome = await handler.handle(body, typeof signature === 'string' ? signature : undefined);
        request.log.info(
          { eventId: outcome.eventId, type: outcome.type, duplicate: outcome.duplicate },
          'stripe webhook',
        );
        return { data: { received: true, duplicate: outcome.duplicate } };
      },
    });
  });
}
