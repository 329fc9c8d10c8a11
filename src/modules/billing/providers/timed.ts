import type { ProviderCallTimer } from '../../metrics/index.js';
import type { BillingProvider } from './provider.js';

/** The billing provider with each call to it timed (the local provider too: it is the same interface). */
export function timedBillingProvider(provider: BillingProvider, time: ProviderCallTimer): BillingProvider {
  return {
    get name() {
      return provider.name;
    },
    get portalNeedsCustomer() {
      return provider.portalNeedsCustomer;
    },
    sellsPlan: (planKey) => provider.sellsPlan(planKey),
    createCheckout: (request) => time(provider.name, 'checkout', () => provider.createCheckout(request)),
    createPortal: (request) => time(provider.name, 'portal', () => provider.createPortal(request)),
  };
}
