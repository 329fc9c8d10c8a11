-- Billing providers are a registry in code (src/modules/billing/providers/index.ts): a provider added there
-- must not also need the list of allowed ids widened here.
ALTER TABLE billing_subscriptions DROP CONSTRAINT billing_subscriptions_provider_check;
