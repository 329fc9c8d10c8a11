/**
 * The console's pages: the one list both sides hold to. The console's router (console/src/main.tsx) routes
 * exactly these paths (a type check there, against the copy `npm run console:api-types` writes into
 * console/src/generated/, refuses a page whose path is not listed and a listed path without a page); the
 * server answers each path with the page shell, status 200, and any other page request with the shell and
 * status 404 (console.routes.ts).
 * Patterns as React Router writes them.
 */
export const CONSOLE_PAGES = [
  '/',
  '/experts/*',
  '/playground',
  '/sign-in',
  '/home',
  '/keys',
  '/billing',
  '/connections',
  '/projects',
  '/integrations',
  '/audit',
  '/developers',
  '/developers/webhooks',
  '/developers/webhooks/:endpointId',
  '/developers/events',
  '/members',
  '/settings',
  '/publishing',
  '/mcp-catalog',
  '/mcp-catalog/servers/*',
  '/cli-login',
  '/invitations/:token',
] as const;

export type ConsolePath = (typeof CONSOLE_PAGES)[number];
