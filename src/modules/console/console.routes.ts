import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../http/route-kit.js';
import { CONSOLE_CSP, type ConsoleShell } from './console-assets.js';
import { CONSOLE_PAGES } from './console-pages.js';

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Cadre</title>
<p>The web console has not been built. Run <code>npm run build</code> (or <code>npm start</code>, which builds it).</p>`;

function sendShell(
  shell: ConsoleShell | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
) {
  reply
    .header('content-security-policy', CONSOLE_CSP)
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'same-origin')
    .type('text/html; charset=utf-8');
  if (!shell) return reply.code(503).header('cache-control', 'no-store').send(NOT_BUILT);
  // The shell names the hashed assets of the current build: always revalidated, never served stale.
  reply.header('cache-control', 'no-cache').header('etag', shell.etag);
  if (status === 200 && request.headers['if-none-match'] === shell.etag) return reply.code(304).send();
  return reply.code(status).send(shell.html);
}

/** A page request no route matched (GET or HEAD, asking for HTML): answered with the shell, status 404. */
export function consoleNotFoundPage(shell: ConsoleShell | undefined) {
  return (request: FastifyRequest, reply: FastifyReply): boolean => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return false;
    if (!request.headers.accept?.includes('text/html')) return false;
    sendShell(shell, request, reply, 404);
    return true;
  };
}

/**
 * Each of the console's pages (console-pages.ts, exactly the paths its router routes) answers the app's
 * page shell. Any other path a browser asks for as a page gets the shell with status 404 (the app says "not
 * found"), and `/api/…`, `/registry/…`, `/admin/…`, `/auth/…` keep their JSON 404s (docs/console.md).
 */
export function registerConsoleRoutes(app: App, shell: ConsoleShell | undefined): void {
  for (const url of CONSOLE_PAGES) {
    app.get(url, { schema: { hide: true } }, (request, reply) => sendShell(shell, request, reply, 200));
  }
  if (!shell) return;
  // Hashed file names: a changed file is a new name, so each can be cached for good. Vite's build wrote a
  // .br and .gz beside each (console/scripts/build.mjs); those are sent to clients that accept them.
  app.register(fastifyStatic, {
    root: `${shell.dir}/assets`,
    prefix: '/assets/',
    decorateReply: false,
    index: false,
    preCompressed: true,
    cacheControl: true,
    maxAge: '365d',
    immutable: true,
    schemaHide: true,
    // The same URL answers br, gzip or plain bytes: a shared cache must key on what the client accepts.
    setHeaders: (res) => res.setHeader('vary', 'accept-encoding'),
  });
  if (shell.favicon) {
    const favicon = shell.favicon;
    app.get('/favicon.svg', { schema: { hide: true } }, (_request, reply) =>
      reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(favicon),
    );
  }
}
