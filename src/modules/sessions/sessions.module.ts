import type { RateLimitStore } from '../../http/rate-limit/store.js';
import type { App } from '../../http/route-kit.js';
import type { Clock } from '../../lib/clock.js';
import { createDemoPasswordHint } from './demo-hint.js';
import { createGuessBudget } from './guess-budget.js';
import { createLoginLimiter, DEFAULT_LOGIN_LIMITS, type LoginLimits } from './login-limiter.js';
import { createSessionResolver } from './session-resolver.js';
import { registerSessionRoutes } from './sessions.routes.js';
import { createSessionsService, type SessionsServiceDeps } from './sessions.service.js';

export interface SessionsModuleDeps extends Omit<SessionsServiceDeps, 'limiter'> {
  clock: Clock;
  loginLimits?: LoginLimits | undefined;
  /** The rate limits' store (Redis when configured): every instance shares each account's budget of wrong passwords. */
  store: RateLimitStore;
  /** Adds `Secure` to the session cookie (when Cadre is served over https). */
  secureCookie: boolean;
  /** The embedded quick start's bootstrap.json, for the sign-in page's demo hint (unset: no hint). */
  bootstrapFile?: string | undefined;
}

/** Console sessions: login and logout (the auth face) and the session cookie's resolver. */
export function createSessionsModule({
  loginLimits,
  secureCookie,
  bootstrapFile,
  store,
  ...deps
}: SessionsModuleDeps) {
  const limits = loginLimits ?? DEFAULT_LOGIN_LIMITS;
  const guessBudget = createGuessBudget(store, limits.windowMs);
  const service = createSessionsService({
    ...deps,
    limiter: createLoginLimiter(limits, deps.clock, guessBudget),
  });
  return {
    service,
    /** Each account's wrong passwords, for every route that checks one (invitation links). */
    guessBudget,
    /** Resolves the session cookie (the request pipeline's authentication). */
    resolver: createSessionResolver(service),
    registerRoutes(app: App) {
      registerSessionRoutes(app, service, {
        secureCookie,
        demoPasswordHint: createDemoPasswordHint({ database: deps.database, bootstrapFile }),
      });
    },
  };
}
