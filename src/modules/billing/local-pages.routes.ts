import type { FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { App } from '../../http/route-kit.js';
import type { Plan } from './plans.js';
import { LOCAL_PAGES_PREFIX, type LocalBilling } from './providers/local.js';
import { normalizedUrl } from './return-url.js';

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const money = (plan: Plan) =>
  `${(plan.amount / 100).toFixed(2)} ${plan.currency.toUpperCase()} / ${plan.interval}`;

// The console's look (console/src/styles.css: its colours, font stack, radius and dark scheme), inline
// because these pages are served without the console's assets; the CSP allows inline style and nothing else.
const STYLE = `:root{color-scheme:light dark;--bg:#f7f7fb;--surface:#fff;--text:#1a1b25;--muted:#555a6e;
--border:#dcdde6;--accent:#4338ca;--accent-text:#fff;--warning:#8a5300;--warning-soft:#fff4e0}
@media (prefers-color-scheme:dark){:root{--bg:#12131a;--surface:#1b1d27;--text:#e8e9f0;--muted:#a3a7ba;
--border:#323548;--accent:#a5b4fc;--accent-text:#12131a;--warning:#ffc46b;--warning-soft:#3a2c14}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--text);line-height:1.5;
font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
header{background:var(--surface);border-bottom:1px solid var(--border);padding:.9rem 1rem}
.brand{display:flex;align-items:center;gap:.5rem;font-weight:700;font-size:1.1rem;max-width:32rem;margin:0 auto}
.mark{display:inline-grid;place-items:center;width:24px;height:24px;border-radius:6px;background:#4f46e5;
color:#fff;font-size:.9rem}
.card{background:var(--surface);border:1px solid var(--border);border-radius:8px;padding:1.5rem;
max-width:32rem;margin:2rem auto;overflow-wrap:anywhere}
@media (max-width:640px){.card{margin:1rem}}
h1{font-size:1.5rem;line-height:1.2;margin:0 0 .75rem}
.test-mode{margin:0 0 1rem;padding:.5rem .75rem;border-radius:8px;background:var(--warning-soft);
border:1px solid var(--warning);color:var(--text)}
button{font:inherit;font-weight:600;padding:.55rem 1.1rem;border-radius:8px;border:1px solid var(--accent);
background:var(--accent);color:var(--accent-text);cursor:pointer}
button:focus-visible,a:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
a{color:var(--accent)}.muted{color:var(--muted)}`;

/** A period's end in words, in UTC (the server does not know the reader's zone; the console shows it in theirs). */
const endInWords = (end: Date | null | undefined) =>
  end
    ? `${new Intl.DateTimeFormat('en', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(end)} UTC`
    : 'unknown';

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
<style>${STYLE}</style>
</head><body><header><span class="brand"><span class="mark" aria-hidden="true">C</span>Cadre</span></header><main class="card"><p class="test-mode" role="note"><strong>Test mode</strong>: no payment is taken. This is Cadre's built-in local billing provider, for development.</p>
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
        const end = endInWords(subscription.currentPeriodEnd);
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
