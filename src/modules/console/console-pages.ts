/**
 * The console's pages, by name: the one list both sides read. The console's router (console/src/main.tsx)
 * gives each name its page and takes its path from here (TypeScript refuses a route without an entry here,
 * and an entry without a route); the server answers each path with the page shell, status 200, and any other
 * page request with the shell and status 404 (console.routes.ts). Patterns as React Router writes them.
 */
export const CONSOLE_PAGES = {
  registry: '/',
  expert: '/experts/*',
  playground: '/playground',
  signIn: '/sign-in',
  home: '/home',
  keys: '/keys',
  billing: '/billing',
  connections: '/connections',
  projects: '/projects',
  integrations: '/integrations',
  audit: '/audit',
  developers: '/developers',
  webhooks: '/developers/webhooks',
  webhookEndpoint: '/developers/webhooks/:endpointId',
  events: '/developers/events',
  members: '/members',
  settings: '/settings',
  publishing: '/publishing',
  cliLogin: '/cli-login',
  invitation: '/invitations/:token',
} as const;

export type ConsolePage = keyof typeof CONSOLE_PAGES;
