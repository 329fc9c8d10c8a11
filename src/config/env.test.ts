import { describe, expect, it } from 'vitest';
import { isAllowedHost } from '../lib/outbound/address-policy.js';
import { InvalidEnvironmentError, parseEnv } from './env.js';

describe('the local billing provider is a test mode', () => {
  it('is refused with NODE_ENV=production, with a message that says what to do', () => {
    expect(() => parseEnv({ NODE_ENV: 'production' })).toThrow(
      /CADRE_BILLING_PROVIDER \(unset\): the built-in "local" provider activates paid plans without payment.*CADRE_BILLING_ALLOW_LOCAL_IN_PRODUCTION=true/,
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

describe('start-up refusals name the variable, its value and what is expected, one line per problem', () => {
  const refusal = (source: NodeJS.ProcessEnv): string[] => {
    try {
      parseEnv(source);
    } catch (error) {
      if (error instanceof InvalidEnvironmentError) return error.problems;
      throw error;
    }
    throw new Error('the environment was accepted');
  };

  it('says what each variable must be, in words, with the value as set', () => {
    expect(
      refusal({
        PORT: 'abc',
        CADRE_DB_POOL_SIZE: '0',
        CADRE_LOG_LEVEL: 'loud',
        CADRE_PUBLIC_URL: 'cadre.example.com',
        CADRE_RATE_LIMITS: 'maybe',
      }),
    ).toEqual([
      'PORT=abc: expected a port number 0–65535',
      'CADRE_PUBLIC_URL=cadre.example.com: expected a URL, like https://host.example',
      'CADRE_LOG_LEVEL=loud: expected one of fatal, error, warn, info, debug, trace, silent',
      'CADRE_DB_POOL_SIZE=0: expected a whole number, at least 1',
      'CADRE_RATE_LIMITS=maybe: expected one of on, off',
    ]);
    expect(refusal({ PORT: '70000' })).toEqual(['PORT=70000: expected a port number 0–65535']);
    expect(refusal({ CADRE_SHUTDOWN_DRAIN_DELAY_MS: '-5' })).toEqual([
      'CADRE_SHUTDOWN_DRAIN_DELAY_MS=-5: expected a whole number, at least 0',
    ]);
  });

  it('masks secrets (their length only) and the password of a URL', () => {
    const [database, token] = refusal({
      CADRE_ADMIN_TOKEN: 'short-secret-value',
      DATABASE_URL: 'postgres://cadre:hunter2@db.internal:port/cadre',
    });
    expect(token).toBe('CADRE_ADMIN_TOKEN=****** (18 characters, hidden): expected at least 32 characters');
    expect(database).toBe(
      'DATABASE_URL=postgres://cadre:******@db.internal:port/cadre: expected a URL, like https://host.example',
    );
    expect(database).not.toContain('hunter2');
    expect(refusal({ CADRE_TLS_CERT_FILE: '/etc/cadre/cert.pem' })).toEqual([
      "CADRE_TLS_KEY_FILE (unset): required with CADRE_TLS_CERT_FILE (the certificate's private key)",
    ]);
  });
});

describe('CADRE_DEV: the one switch for local development', () => {
  it('off by default: no private webhook target, no plain-http provider', () => {
    const env = parseEnv({});
    expect(env.CADRE_DEV).toBe(false);
    expect(isAllowedHost(env.webhookPrivateTargets, new URL('https://127.0.0.1/'))).toBe(false);
    expect(env.allowHttpLoopbackProviders).toBe(false);
    expect(parseEnv({ CADRE_OAUTH_ALLOW_HTTP_LOOPBACK: 'true' }).allowHttpLoopbackProviders).toBe(true);
  });

  it('on: this host joins the operator’s webhook list, and providers may be plain http on loopback', () => {
    const env = parseEnv({ CADRE_DEV: '1', CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS: 'hooks.internal' });
    for (const url of [
      'https://127.0.0.1:8443/',
      'http://localhost/',
      'http://[::1]/',
      'http://hooks.internal/',
    ])
      expect(isAllowedHost(env.webhookPrivateTargets, new URL(url)), url).toBe(true);
    expect(isAllowedHost(env.webhookPrivateTargets, new URL('https://10.0.0.7/'))).toBe(false);
    expect(env.allowHttpLoopbackProviders).toBe(true);
    expect(() => parseEnv({ CADRE_DEV: 'yes' })).toThrow(/CADRE_DEV/);
  });
});
