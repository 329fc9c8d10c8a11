import { describe, expect, it } from 'vitest';
import { parseEnv } from './env.js';

describe('the local billing provider is a test mode', () => {
  it('is refused with NODE_ENV=production, with a message that says what to do', () => {
    expect(() => parseEnv({ NODE_ENV: 'production' })).toThrow(
      /CADRE_BILLING_PROVIDER: the built-in "local" provider activates paid plans without payment.*CADRE_BILLING_ALLOW_LOCAL_IN_PRODUCTION=true/,
    );
  });

  it('runs in production only when explicitly allowed, and anywhere else by default', () => {
    expect(
      parseEnv({ NODE_ENV: 'production', CADRE_BILLING_ALLOW_LOCAL_IN_PRODUCTION: 'true' })
        .CADRE_BILLING_PROVIDER,
    ).toBe('local');
    expect(parseEnv({ NODE_ENV: 'development' }).CADRE_BILLING_PROVIDER).toBe('local');
    expect(parseEnv({}).CADRE_BILLING_PROVIDER).toBe('local');
    expect(() =>
      parseEnv({
        NODE_ENV: 'production',
        CADRE_BILLING_PROVIDER: 'stripe',
        CADRE_STRIPE_SECRET_KEY: 'sk_test_x',
      }),
    ).not.toThrow();
  });
});
