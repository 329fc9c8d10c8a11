// The built-in "local" billing provider as the registry of providers lists it (./index.ts): its settings and
// what it builds, the provider (./local.ts) and its pages (../local-pages.routes.ts), kept apart from both so
// neither imports the other back.
import { z } from 'zod';
import { registerLocalBillingPages } from '../local-pages.routes.js';
import type { BillingProviderDefinition } from './definition.js';
import { createLocalProvider, LOCAL } from './local.js';

/**
 * The default provider (first in the registry): a test mode, so answers say `testMode: true`, the server
 * warns at start, and NODE_ENV=production refuses it unless explicitly allowed.
 */
export const localBillingProvider: BillingProviderDefinition<
  { CADRE_BILLING_ALLOW_LOCAL_IN_PRODUCTION: 'true' | 'false' },
  undefined
> = {
  id: LOCAL,
  testMode: true,
  endsAtPeriodEnd: true,
  env: z.object({
    CADRE_BILLING_ALLOW_LOCAL_IN_PRODUCTION: z.enum(['true', 'false']).default('false'),
  }),
  settings(vars, { production, problem }) {
    if (production && vars.CADRE_BILLING_ALLOW_LOCAL_IN_PRODUCTION !== 'true') {
      problem(
        'CADRE_BILLING_PROVIDER',
        'the built-in "local" provider activates paid plans without payment (a test mode) and is refused with NODE_ENV=production: set CADRE_BILLING_PROVIDER=stripe, or CADRE_BILLING_ALLOW_LOCAL_IN_PRODUCTION=true to run it anyway',
      );
    }
    return undefined;
  },
  create(_settings, deps) {
    const local = createLocalProvider(deps);
    return { provider: local.provider, registerPages: (app) => registerLocalBillingPages(app, local) };
  },
};
