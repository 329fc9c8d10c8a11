import { z } from 'zod';
import {
  LOOPBACK_ENTRIES,
  NO_ALLOWANCE,
  type OutboundAllowance,
  parseOutboundAllowance,
} from '../lib/outbound/address-policy.js';
import type { BillingOptions } from '../modules/billing/index.js';
import { BILLING_PROVIDERS } from '../modules/billing/index.js';
import { skillNameSchema } from '../modules/registry/index.js';
import { applyPolicyChange, OPEN_POLICY, publishPolicyChange } from '../modules/supply-chain/index.js';
import { type EnvProblem, formatProblems, problemsOf } from './env-problems.js';

const commaList = z.string().transform((value) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean),
);

const positiveInt = z.coerce.number().int().positive();
/** A switch, off unless set to `true` or `1`. */
const offByDefault = z
  .enum(['true', 'false', '1', '0'])
  .default('false')
  .transform((value) => value === 'true' || value === '1');

/**
 * CADRE_PUBLISH_POLICY_DEFAULT: a JSON object of publish-policy rules and/or a preset (the body of PUT
 * /api/v1/organization/publish-policy), applied over the open policy; unset or empty: new organizations start
 * open. Anything else stops the start, naming the field.
 */
const publishPolicyDefault = z
  .string()
  .optional()
  .transform((text, ctx) => {
    if (text === undefined || text.trim() === '') return undefined;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON object, e.g. {"preset":"recommended"}' });
      return z.NEVER;
    }
    const parsed = publishPolicyChange.safeParse(json);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
        ctx.addIssue({ code: 'custom', message: `${where}${issue.message}` });
      }
      return z.NEVER;
    }
    return applyPolicyChange(OPEN_POLICY, parsed.data);
  });

/** Skill names, comma-separated: a name no definition could hold would be accepted in vain, so it is refused. */
const skillNameList = commaList.superRefine((names, ctx) => {
  for (const name of names) {
    const problem = skillNameSchema.safeParse(name).error?.issues[0]?.message;
    if (problem) ctx.addIssue({ code: 'custom', message: `"${name}" is not a skill name: it ${problem}` });
  }
});

/**
 * Host names and addresses or CIDRs, comma-separated: webhook targets the operator allows although private.
 * CADRE_DEV=1 adds this host's (parseEnv).
 */
const privateHostList = commaList.transform((entries, ctx) => {
  const { allowance, invalid } = parseOutboundAllowance(entries);
  for (const entry of invalid) {
    ctx.addIssue({
      code: 'custom',
      message: `"${entry}" is neither a host name nor an IP address or CIDR (like 127.0.0.1, hooks.internal or 10.0.0.0/8)`,
    });
  }
  return allowance;
});

/**
 * Every environment variable Cadre reads, parsed once at start-up. README lists them all; keep the two in
 * step. Modules receive the parsed values through their dependencies and never read `process.env`.
 */
const envSchema = z.object({
  /**
   * Local development (docs/operations.md, "Local development"): loopback webhook targets, plain-http
   * providers on loopback (OAuth, identity providers), the start-up banner. Never in production.
   */
  CADRE_DEV: offByDefault,
  /** `auto`: readable lines on a terminal, JSON lines otherwise (a file, a pipe, a log collector). */
  CADRE_LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATABASE_URL: z.string().url().optional(),
  REDIS_URL: z.string().url().optional(),
  CADRE_DATA_DIR: z.string().default('./.cadre-data'),
  CADRE_ADMIN_TOKEN: z.string().min(32, 'CADRE_ADMIN_TOKEN must be at least 32 characters').optional(),
  CADRE_PUBLIC_URL: z.string().url().optional(),
  CADRE_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** One log line per answered request (method, path, status, time). */
  CADRE_LOG_REQUESTS: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
  CADRE_BODY_LIMIT_BYTES: positiveInt.default(1024 * 1024),
  CADRE_SHUTDOWN_TIMEOUT_MS: positiveInt.default(10_000),
  /**
   * Behind a load balancer: on SIGTERM, /readyz answers 503 at once and requests are still served this
   * long, so the balancer's health check takes the instance out before it stops accepting.
   */
  CADRE_SHUTDOWN_DRAIN_DELAY_MS: z.coerce.number().int().min(0).default(0),
  CADRE_DB_POOL_SIZE: positiveInt.default(10),
  CADRE_LAST_USED_FLUSH_MS: positiveInt.default(5_000),
  /** `keyId:base64(32 bytes)` entries, newest first (docs/oauth.md). Embedded mode generates one if unset. */
  CADRE_ENCRYPTION_KEYS: z.string().optional(),
  /** Where the console is served (OAuth returnTo); default: CADRE_PUBLIC_URL. */
  CADRE_CONSOLE_URL: z.string().url().optional(),
  /** SMTP server for invitation emails (smtp:// or smtps://, nodemailer's URL); unset: the inviter copies the link. */
  CADRE_SMTP_URL: z.string().url().optional(),
  /** The From of invitation emails. */
  CADRE_SMTP_FROM: z.string().min(3).max(320).default('Cadre <cadre@localhost>'),
  CADRE_ALLOWED_RETURN_ORIGINS: commaList
    .pipe(
      z.array(
        z.string().url('CADRE_ALLOWED_RETURN_ORIGINS entries must be origins like https://app.example.com'),
      ),
    )
    .default([]),
  /** Lets integrations name plain-http providers on loopback (a local OpenID provider). Never in production. */
  CADRE_OAUTH_ALLOW_HTTP_LOOPBACK: offByDefault,
  /** Encode every answer through its schema and refuse one it would change (src/http/serializer.ts). */
  CADRE_CHECK_RESPONSES: offByDefault,
  /** Entries of the registry's per-instance read cache; 0 disables it. */
  CADRE_REGISTRY_CACHE_ENTRIES: z.coerce.number().int().min(0).default(10_000),
  /** Base-skill names a publish may use besides "@service/base" and "@perstack/base" (docs/registry.md). */
  CADRE_BASE_SKILL_NAMES: skillNameList.default([]),
  /** The publish policy new organizations start with, as JSON (docs/registry.md "Publish policies"). */
  CADRE_PUBLISH_POLICY_DEFAULT: publishPolicyDefault,
  /** Webhook targets allowed although private or loopback, and the only hosts plain http may reach (docs/webhooks.md). */
  CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS: privateHostList.default(NO_ALLOWANCE),
  /** Identity providers allowed although private or loopback, and the only hosts plain http may reach (docs/sso.md). */
  CADRE_SSO_ALLOWED_PRIVATE_HOSTS: privateHostList.default(NO_ALLOWANCE),
  /** How long a claimed webhook delivery stays another instance's; past it (its instance died) it is sent again. */
  CADRE_WEBHOOKS_LEASE_SECONDS: z.coerce
    .number()
    .int()
    .min(15, 'CADRE_WEBHOOKS_LEASE_SECONDS must be at least 15 (an attempt may take 10 seconds)')
    .max(3600)
    .default(30),
  /**
   * DNS servers the verified-domain TXT checks ask (`ip` or `ip:port`, comma-separated; docs/domains.md);
   * empty: the system's resolvers.
   */
  CADRE_DNS_SERVERS: commaList
    .pipe(
      z.array(
        z
          .string()
          .regex(
            /^(\d{1,3}(\.\d{1,3}){3}(:\d{1,5})?|\[[0-9a-fA-F:]+\](:\d{1,5})?|[0-9a-fA-F:]+)$/,
            'CADRE_DNS_SERVERS entries must be IP addresses, optionally with a port (1.1.1.1, 10.0.0.2:5353)',
          ),
      ),
    )
    .default([]),
  /** How old a verified domain's last check may grow before it is checked again (default 6 hours). */
  CADRE_DOMAIN_RECHECK_SECONDS: positiveInt.default(21_600),
  CADRE_BOOTSTRAP: z.enum(['auto', 'off']).default('auto'),
  // Protection (docs/operations.md). Rate limits count requests in a sliding window, per credential (API key,
  // console session, the admin token) or per client IP for anonymous requests, reads (GET/HEAD/OPTIONS) and
  // writes apart. Defaults are far above what one client does by hand or in a script.
  CADRE_RATE_LIMITS: z.enum(['on', 'off']).default('on'),
  CADRE_RATE_LIMIT_WINDOW_S: positiveInt.default(60),
  CADRE_CONCURRENCY_PER_CREDENTIAL: positiveInt.default(32),
  CADRE_CONCURRENCY_PER_ORGANIZATION: positiveInt.default(64),
  CADRE_CONCURRENCY_QUEUE_MS: positiveInt.default(2_000),
  // Unset: chosen by database (docs/operations.md, "Fairness between tenants").
  CADRE_CONCURRENCY_CAPACITY: positiveInt.optional(),
  CADRE_CONCURRENCY_RESERVED: positiveInt.default(2),
  CADRE_RATE_LIMIT_READ: positiveInt.default(6_000),
  CADRE_RATE_LIMIT_WRITE: positiveInt.default(1_200),
  CADRE_RATE_LIMIT_ANONYMOUS_READ: positiveInt.default(3_000),
  CADRE_RATE_LIMIT_ANONYMOUS_WRITE: positiveInt.default(600),
  /** An organization's budget over all its credentials, as a multiple of CADRE_RATE_LIMIT_READ / _WRITE. */
  CADRE_RATE_LIMIT_ORGANIZATION_MULTIPLE: positiveInt.default(5),
  /** SCIM requests per organization and window (its own budget, not the anonymous one). */
  CADRE_RATE_LIMIT_SCIM_READ: positiveInt.default(1_200),
  CADRE_RATE_LIMIT_SCIM_WRITE: positiveInt.default(600),
  /** Single sign-on starts per client IP and window. */
  CADRE_RATE_LIMIT_SSO_STARTS: positiveInt.default(30),
  /** Failed authentications (401) per client IP and window; past it the address gets 429 unread. */
  CADRE_RATE_LIMIT_AUTH_FAILURES: positiveInt.default(600),
  /** Requests naming Projects outside the caller's organization, per user and window, before 429. */
  CADRE_FOREIGN_RESOURCE_LIMIT: positiveInt.default(20),
  CADRE_FOREIGN_RESOURCE_WINDOW_S: positiveInt.default(60),
  /** Behind a load balancer: `true` (trust every hop) or a comma list of proxy addresses/CIDRs. */
  CADRE_TRUST_PROXY: z.string().optional(),
  // TLS served by Cadre itself (docs/operations.md, "TLS"): both files or neither (checked in parseEnv).
  /** PEM certificate (chain); re-read on SIGHUP with the key. */
  CADRE_TLS_CERT_FILE: z.string().min(1, 'a file path (unset: plain HTTP)').optional(),
  /** PEM private key of that certificate. */
  CADRE_TLS_KEY_FILE: z.string().min(1, 'a file path (unset: plain HTTP)').optional(),
  /** Offer HTTP/2 over TLS (ALPN), HTTP/1.1 still served to clients that do not ask for it. */
  CADRE_HTTP2: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  /** Shed load (503) while the event loop lags more than this. */
  CADRE_OVERLOAD_EVENT_LOOP_DELAY_MS: positiveInt.default(1_000),
  /** Shed load while the V8 heap is fuller than this fraction of its limit. */
  CADRE_OVERLOAD_HEAP_RATIO: z.coerce.number().positive().max(1).default(0.95),
  /** Shed load while more than this many queries wait for a database pool connection. */
  CADRE_OVERLOAD_DB_WAITING: positiveInt.default(100),
  /** No request is answered later than this: past it the answer is 503 (outcome of a write unknown). */
  CADRE_REQUEST_DEADLINE_MS: positiveInt.default(15_000),
  /** A client must send its request headers within this. */
  CADRE_HEADERS_TIMEOUT_MS: positiveInt.default(10_000),
  /** A client must send its whole request (headers and body) within this. */
  CADRE_REQUEST_TIMEOUT_MS: positiveInt.default(30_000),
  /** Idle keep-alive connections are closed after this; above the load balancer's idle timeout, so it closes first. */
  CADRE_KEEP_ALIVE_TIMEOUT_MS: positiveInt.default(72_000),
  // Metrics (docs/operations.md): GET /metrics in Prometheus' text format.
  CADRE_METRICS: z.enum(['on', 'off']).default('on'),
  /** Bearer token for /metrics; without it, /metrics answers only direct loopback clients. */
  CADRE_METRICS_TOKEN: z.string().min(16, 'CADRE_METRICS_TOKEN must be at least 16 characters').optional(),
  /** Serve /metrics on this port instead of the main one. */
  CADRE_METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  // Console sessions and login throttling.
  CADRE_SESSION_TTL_SECONDS: positiveInt.default(12 * 3600),
  /** Failed logins per account from one address per window (docs/sessions.md). */
  CADRE_LOGIN_MAX_FAILURES_PER_ACCOUNT: positiveInt.default(10),
  /** Failed logins per account from all addresses per window, before unknown addresses are slowed down. */
  CADRE_LOGIN_MAX_FAILURES_PER_ACCOUNT_ALL_ADDRESSES: positiveInt.default(100),
  CADRE_LOGIN_MAX_ATTEMPTS_PER_IP: positiveInt.default(60),
  CADRE_LOGIN_WINDOW_SECONDS: positiveInt.default(900),
  // Billing (docs/billing.md): CADRE_BILLING_PROVIDER and each provider's own variables are read by
  // parseEnv through the provider registry.
  NODE_ENV: z.string().optional(),
  CADRE_USAGE_FLUSH_MS: positiveInt.default(10_000),
  /** An operator's plan catalogue (TOML or JSON) replacing the built-in one; read again on SIGHUP (docs/billing.md). */
  CADRE_PLANS_FILE: z.string().min(1).optional(),
});

export type Env = z.infer<typeof envSchema> & {
  /** The chosen billing provider's id. */
  CADRE_BILLING_PROVIDER: string;
  /** Billing options: the chosen provider and its settings, from its own variables. */
  billing: BillingOptions;
  /** TLS served by Cadre: both files set; undefined: plain HTTP. */
  tls: { certFile: string; keyFile: string; http2: boolean } | undefined;
  /** Where webhooks may go although private: CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS, and loopback with CADRE_DEV. */
  webhookPrivateTargets: OutboundAllowance;
  /** Identity providers reachable although private: CADRE_SSO_ALLOWED_PRIVATE_HOSTS, and loopback with CADRE_DEV. */
  ssoPrivateTargets: OutboundAllowance;
  /**
   * Providers Cadre talks to on a user's behalf (OAuth integrations, identity providers) may be plain http on
   * this host: CADRE_DEV or CADRE_OAUTH_ALLOW_HTTP_LOOPBACK.
   */
  allowHttpLoopbackProviders: boolean;
};

/**
 * The environment names a setting wrongly: the operator's to fix, so the service says what, not where. One
 * line per problem (env-problems.ts): `PORT=abc: expected a port number 0–65535`.
 */
export class InvalidEnvironmentError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

/**
 * Parses the environment. Billing providers come from a registry (providers/index.ts): it names the values
 * CADRE_BILLING_PROVIDER takes, and each provider validates its own variables and may refuse to start.
 */
export function parseEnv(source: NodeJS.ProcessEnv = process.env, providers = BILLING_PROVIDERS): Env {
  const schema = envSchema.extend({
    CADRE_BILLING_PROVIDER: z.enum(providers.ids).default(providers.defaultId),
  });
  const problems: EnvProblem[] = [];
  const report = (issues: readonly z.core.$ZodIssue[], of: z.ZodType) =>
    problems.push(...problemsOf(issues, of instanceof z.ZodObject ? of.shape : {}));
  const result = schema.safeParse(source);
  if (!result.success) report(result.error.issues, schema);
  // Every provider's variables are checked, the chosen one's or not: a typo is found before it is needed.
  const vars = new Map<unknown, unknown>();
  for (const definition of providers.definitions) {
    const parsed = definition.env.safeParse(source);
    if (parsed.success) vars.set(definition, parsed.data);
    else report(parsed.error.issues, definition.env);
  }
  let settings: unknown;
  const chosen = result.success ? providers.get(result.data.CADRE_BILLING_PROVIDER) : undefined;
  if (result.success && chosen && vars.has(chosen)) {
    settings = chosen.settings(vars.get(chosen), {
      production: result.data.NODE_ENV === 'production',
      problem: (variable, expected) => problems.push({ variable, expected }),
    });
  }
  if (result.success) problems.push(...tlsProblems(result.data));
  if (!result.success || problems.length > 0)
    throw new InvalidEnvironmentError(formatProblems(problems, source));
  const env = result.data;
  const provider = env.CADRE_BILLING_PROVIDER;
  const { CADRE_TLS_CERT_FILE: certFile, CADRE_TLS_KEY_FILE: keyFile } = env;
  return {
    ...env,
    tls: certFile && keyFile ? { certFile, keyFile, http2: env.CADRE_HTTP2 } : undefined,
    webhookPrivateTargets: env.CADRE_DEV
      ? parseOutboundAllowance([
          ...(source.CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS ?? '').split(','),
          ...LOOPBACK_ENTRIES,
        ]).allowance
      : env.CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS,
    ssoPrivateTargets: env.CADRE_DEV
      ? parseOutboundAllowance([
          ...(source.CADRE_SSO_ALLOWED_PRIVATE_HOSTS ?? '').split(','),
          ...LOOPBACK_ENTRIES,
        ]).allowance
      : env.CADRE_SSO_ALLOWED_PRIVATE_HOSTS,
    allowHttpLoopbackProviders: env.CADRE_DEV || env.CADRE_OAUTH_ALLOW_HTTP_LOOPBACK,
    billing: {
      provider,
      usageFlushMs: env.CADRE_USAGE_FLUSH_MS,
      ...(settings === undefined ? {} : { [provider]: settings }),
    },
  };
}

/**
 * A certificate without its key (or the reverse) is half a set-up: refused, not served as plain HTTP, which
 * the operator did not ask for. HTTP/2 is offered over TLS only (browsers and most clients speak it nowhere
 * else, and a cleartext HTTP/2 server would refuse every HTTP/1.1 client).
 */
function tlsProblems(env: z.infer<typeof envSchema>): EnvProblem[] {
  const cert = env.CADRE_TLS_CERT_FILE !== undefined;
  const key = env.CADRE_TLS_KEY_FILE !== undefined;
  const problem = (variable: string, expected: string) => [{ variable, expected }];
  if (cert && !key)
    return problem('CADRE_TLS_KEY_FILE', "required with CADRE_TLS_CERT_FILE (the certificate's private key)");
  if (key && !cert)
    return problem('CADRE_TLS_CERT_FILE', "required with CADRE_TLS_KEY_FILE (the key's certificate)");
  if (env.CADRE_HTTP2 && !cert)
    return problem(
      'CADRE_HTTP2',
      'HTTP/2 is served over TLS only; set CADRE_TLS_CERT_FILE and CADRE_TLS_KEY_FILE too',
    );
  return [];
}
