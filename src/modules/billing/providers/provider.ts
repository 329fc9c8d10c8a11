import type { Plan } from '../plans.js';

interface CheckoutRequest {
  organizationId: string;
  userId: string;
  userEmail: string;
  plan: Plan;
  successUrl: string;
  cancelUrl: string;
  /** The provider's own idempotency key, derived from the client's Idempotency-Key and request. */
  idempotencyKey: string;
  /** The organization's customer at this provider, once it has one. */
  customerId: string | null;
  /** Where Cadre is reachable (the local provider's pages live there). */
  baseUrl: string;
}

interface PortalRequest {
  organizationId: string;
  userId: string;
  returnUrl: string;
  idempotencyKey: string;
  customerId: string | null;
  baseUrl: string;
}

export interface CheckoutSession {
  sessionId: string;
  url: string;
  expiresAt: Date;
}

export interface PortalSession {
  sessionId: string;
  url: string;
}

/** A payment provider: Cadre never talks to one except through this. */
export interface BillingProvider {
  /** Its definition's id. */
  readonly name: string;
  /** Can a checkout for this plan be created (the plan is priced at the provider)? */
  sellsPlan(planKey: string): boolean;
  /** Does the portal need an existing customer at the provider? */
  readonly portalNeedsCustomer: boolean;
  createCheckout(request: CheckoutRequest): Promise<CheckoutSession>;
  createPortal(request: PortalRequest): Promise<PortalSession>;
}

/** The provider could not be reached or refused the call; the request may be retried. */
export class ProviderUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProviderUnavailableError';
  }
}
