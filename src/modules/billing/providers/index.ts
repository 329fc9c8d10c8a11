import { createBillingProviders } from './definition.js';
import { localBillingProvider } from './local-definition.js';
import { stripeBillingProvider } from './stripe.js';

export type { BillingProviders } from './definition.js';

/** Every billing provider Cadre can run; the first is the default (CADRE_BILLING_PROVIDER unset). */
export const BILLING_PROVIDERS = createBillingProviders([localBillingProvider, stripeBillingProvider]);
