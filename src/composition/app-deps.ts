// What buildApp (src/app.ts) is given: the database, the clock, and every option of the service's
// behaviour that main.ts reads from the environment (tests pass their own).
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/client.js';
import type { ConcurrencyOptions } from '../http/concurrency.js';
import type { OverloadOptions } from '../http/overload.js';
import type { ForeignResourceOptions, RateLimitOptions } from '../http/rate-limit/rate-limit.js';
import type { RateLimitStore } from '../http/rate-limit/store.js';
import type { ServedTls } from '../http/tls.js';
import type { Clock } from '../lib/clock.js';
import type { KeyRing } from '../lib/key-ring.js';
import type { BillingOptions, BillingProviders } from '../modules/billing/index.js';
import type { DomainsModuleDeps } from '../modules/domains/index.js';
import type { SmtpOptions } from '../modules/members/index.js';
import type { OAuthNetworkOptions } from '../modules/oauth/index.js';
import type { LoginLimits } from '../modules/sessions/index.js';
import type { SsoNetworkOptions } from '../modules/sso/index.js';
import type { PublishPolicy } from '../modules/supply-chain/index.js';
import type { WebhooksModuleDeps } from '../modules/webhooks/index.js';

export interface AppDeps {
  database: Database;
  clock?: Clock;
  /** A pino logger, or false for none (tests). */
  logger?: FastifyBaseLogger | false;
  /** Log one line per answered request (default true when a logger is given). */
  logRequests?: boolean;
  /** Enables the admin API when set. */
  adminToken?: string | undefined;
  bodyLimitBytes?: number;
  lastUsedFlushMs?: number;
  /** CADRE_PUBLIC_URL: OAuth redirect_uri origin, local billing pages; https makes cookies Secure. */
  publicUrl?: string | undefined;
  sessionTtlMs?: number;
  loginLimits?: LoginLimits;
  billing?: BillingOptions;
  /** The billing providers that can be chosen (default: every registered one; tests add their own). */
  billingProviders?: BillingProviders;
  /** Encrypts OAuth client secrets and tokens; without it OAuth answers 503 (see docs/oauth.md). */
  keyRing?: KeyRing | undefined;
  /** Webhook deliveries: CADRE_WEBHOOKS_ALLOWED_PRIVATE_HOSTS, and the worker's tuning (docs/webhooks.md). */
  webhooks?: Pick<WebhooksModuleDeps, 'allowedPrivateHosts' | 'worker'>;
  /** The console's origin (relative returnTo, invalid-state landing); default: publicUrl. */
  consoleUrl?: string | undefined;
  /** CADRE_SMTP_URL and CADRE_SMTP_FROM: invitations are also sent by email (docs/organization-api.md). */
  smtp?: SmtpOptions | undefined;
  allowedReturnOrigins?: string[];
  /** How OAuth providers are reached (tests allow http on loopback). */
  oauthHttp?: OAuthNetworkOptions;
  /**
   * Encode every answer through its schema as well, and fail one the schema would change (the test suite;
   * CADRE_CHECK_RESPONSES): src/http/serializer.ts.
   */
  checkResponses?: boolean;
  /** Entries of the registry's per-instance read cache; 0 disables it (benchmarks). */
  registryCacheEntries?: number;
  /** Base-skill names accepted besides Cadre's and Perstack's (CADRE_BASE_SKILL_NAMES, docs/registry.md). */
  baseSkillNames?: readonly string[];
  /** The publish policy new organizations start with (CADRE_PUBLISH_POLICY_DEFAULT, docs/registry.md). */
  publishPolicyDefault?: PublishPolicy | undefined;
  /** The embedded quick start's bootstrap.json (main.ts): the sign-in page's demo-password hint reads it. */
  bootstrapFile?: string;
  /** Rate limits (defaults: DEFAULT_RATE_LIMITS); tests pass small ones. */
  rateLimits?: Partial<RateLimitOptions>;
  /** In-flight limits per credential and per organization (defaults: DEFAULT_CONCURRENCY). */
  concurrency?: Partial<ConcurrencyOptions>;
  /** Shared counters (Redis) for rate limits; an in-memory store of this app by default. */
  rateLimitStore?: RateLimitStore;
  foreignResources?: Partial<ForeignResourceOptions>;
  overload?: Partial<OverloadOptions>;
  /** Fastify `trustProxy`: behind a load balancer, so `request.ip` is the client's. */
  trustProxy?: boolean | string[];
  /**
   * Prometheus metrics (on by default): `token` guards /metrics on the main port (else loopback only);
   * `separatePort` leaves /metrics off the main port (main.ts serves it on CADRE_METRICS_PORT);
   * `processMetrics` adds Node's process metrics (once per process).
   */
  metrics?: {
    enabled?: boolean;
    token?: string | undefined;
    separatePort?: boolean;
    processMetrics?: boolean;
  };
  /** The built web console (default: dist/console); false serves no console at all. */
  consoleDir?: string | false;
  /** Slow-client bounds: headers, whole request, idle keep-alive (ms). */
  timeouts?: { headersMs?: number; requestMs?: number; keepAliveMs?: number };
  /** Serve HTTPS (or HTTP/2 with HTTP/1.1) with this certificate; unset: plain HTTP. */
  tls?: ServedTls;
  /** Single sign-on's reach: CADRE_SSO_ALLOWED_PRIVATE_HOSTS and the request deadline (docs/sso.md). */
  sso?: Partial<SsoNetworkOptions>;
  /** Verified domains: the DNS servers (CADRE_DNS_SERVERS), re-check timing (docs/domains.md). */
  domains?: Pick<DomainsModuleDeps, 'proof' | 'recheckAfterMs' | 'lapseAfterFailures' | 'sweepIntervalMs'>;
}
