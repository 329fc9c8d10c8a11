import type { FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { App } from '../../http/route-kit.js';
import type { Plan } from './plans.js';
import type { LocalBilling } from './providers/local.js';
import { normalizedUrl } from './return-url.js';

export const LOCAL_PAGES_PREFIX = '/billing/local';

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const money = (plan: Plan) =>
  `${(plan.amount / 100).toFixed(2)} ${plan.currency.toUpperCase()} / ${plan.interval}`;

function page(reply: FastifyReply, title: string, body: string, status = 200) {
  return (
    reply
      .code(status)
      .header('Content-Type', 'text/html; charset=utf-8')
      .header('Cache-Control', 'no-store')
      // The session id in the URL is the capability: never leak it, never be framed (clickjacking).
      .header('Referrer-Policy', 'no-referrer')
      .header('X-Frame-Options', 'DENY')
      .header(
        'Content-Security-Policy',
        "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
      )
      .send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Cadre</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1f2328}
.card{border:1px solid #d0d7de;border-radius:8px;padding:1.5rem}.test-mode{margin:0 0 1rem;padding:.5rem .75rem;
border-radius:6px;background:#fff8c5;border:1px solid #d4a72c;color:#4d2d00}button{font-size:1rem;padding:.6rem 1.2rem;
border-radius:6px;border:0;background:#0969da;color:#fff;cursor:pointer}a{color:#0969da}.muted{color:#57606a}</style>
</head><body><main class="card"><p class="test-mode" role="note"><strong>Test mode</strong>: no payment is taken. This is Cadre's built-in local billing provider, for development.</p>
<h1>${escapeHtml(title)}</h1>${body}</main></body></html>`)
  );
}

const sessionParams = z.object({ sessionId: z.string().min(1).max(64) });

/**
 * The local provider's checkout and portal pages. Plain HTML forms (no script), so they work in any
 * browser and offline. Not part of the API: hidden from the OpenAPI document.
 */
export function registerLocalBillingPages(app: App, local: LocalBilling): void {
  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<ZodTypeProvider>();
    // The pages' forms post application/x-www-form-urlencoded; they carry no fields Cadre needs.
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string' },
      (_req, _body, done) => done(null, {}),
    );

    scope.get(`${LOCAL_PAGES_PREFIX}/checkout/:sessionId`, {
      config: { auth: 'public', capabilityUrl: true },
      schema: { hide: true, params: sessionParams },
      handler: async (request, reply) => {
        const { session, plan, open } = await local.checkoutPage(request.params.sessionId);
        if (session.status === 'completed') {
          return page(
            reply,
            'Already paid',
            `<p>This checkout is complete.</p>
<p><a href="${escapeHtml(session.successUrl ?? '')}">Continue</a></p>`,
          );
        }
        if (!open) {
          return page(
            reply,
            'Checkout expired',
            `<p>This checkout session has expired. Start a new one.</p>
<p><a href="${escapeHtml(session.cancelUrl ?? '')}">Back</a></p>`,
            410,
          );
        }
        return page(
          reply,
          `Subscribe to ${plan.name}`,
          `<p>${escapeHtml(plan.description)}</p>
<p><strong id="price">${escapeHtml(money(plan))}</strong></p>
<ul>${plan.features.map((feature) => `<li>${escapeHtml(feature)}</li>`).join('')}</ul>
<form method="post" action="${LOCAL_PAGES_PREFIX}/checkout/${escapeHtml(session.id)}/confirm">
<button type="submit" id="confirm">Confirm and subscribe</button></form>
<p><a id="cancel" href="${escapeHtml(session.cancelUrl ?? '')}">Cancel</a></p>`,
        );
      },
    });

    scope.post(`${LOCAL_PAGES_PREFIX}/checkout/:sessionId/confirm`, {
      config: { auth: 'public', capabilityUrl: true },
      schema: { hide: true, params: sessionParams },
      handler: async (request, reply) => {
        const next = await local.confirmCheckout(request.params.sessionId);
        if (!next) return page(reply, 'Checkout expired', '<p>This checkout session has expired.</p>', 410);
        return reply.code(303).header('Cache-Control', 'no-store').redirect(normalizedUrl(next), 303);
      },
    });

    scope.get(`${LOCAL_PAGES_PREFIX}/portal/:sessionId`, {
      config: { auth: 'public', capabilityUrl: true },
      schema: { hide: true, params: sessionParams },
      handler: async (request, reply) => {
        const { session, subscription, plan, open } = await local.portalPage(request.params.sessionId);
        const back = `<p><a id="return" href="${escapeHtml(session.returnUrl ?? '')}">Return</a></p>`;
        if (!open) return page(reply, 'Portal session expired', `<p>Open the portal again.</p>${back}`, 410);
        if (subscription?.provider !== local.provider.name) {
          return page(
            reply,
            'No subscription',
            `<p>This organization has no subscription to manage.</p>${back}`,
          );
        }
        const end = subscription.currentPeriodEnd?.toISOString() ?? 'unknown';
        const action = subscription.cancelAtPeriodEnd ? 'resume' : 'cancel';
        const label = subscription.cancelAtPeriodEnd ? 'Keep my subscription' : 'Cancel at period end';
        return page(
          reply,
          'Manage subscription',
          `<p>Plan: <strong>${escapeHtml(plan?.name ?? subscription.planKey)}</strong>,
status <strong id="status">${escapeHtml(subscription.status)}</strong>, current period ends ${escapeHtml(end)}.</p>
${subscription.cancelAtPeriodEnd ? '<p id="canceling">Cancels at the end of the period.</p>' : ''}
<form method="post" action="${LOCAL_PAGES_PREFIX}/portal/${escapeHtml(session.id)}/${action}">
<button type="submit" id="${action}">${label}</button></form>${back}`,
        );
      },
    });

    for (const action of ['cancel', 'resume'] as const) {
      scope.post(`${LOCAL_PAGES_PREFIX}/portal/:sessionId/${action}`, {
        config: { auth: 'public', capabilityUrl: true },
        schema: { hide: true, params: sessionParams },
        handler: async (request, reply) => {
          const next = await local.setCancelAtPeriodEnd(request.params.sessionId, action === 'cancel');
          if (!next) return page(reply, 'Portal session expired', '<p>Open the portal again.</p>', 410);
          return reply.code(303).header('Cache-Control', 'no-store').redirect(normalizedUrl(next), 303);
        },
      });
    }
  });
}
