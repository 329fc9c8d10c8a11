// The modules' background work: started once the app is built, stopped (in order) when it closes.
import type { App } from '../http/route-kit.js';
import type { AppDeps } from './app-deps.js';
import type { Foundations } from './foundations.js';
import type { Modules } from './modules.js';

export async function startBackgroundWork(
  app: App,
  deps: AppDeps,
  foundations: Foundations,
  modules: Modules,
) {
  const { bus, health, rateLimitStore } = foundations;
  const { registry, apiKeys, billing, events, webhooks, domains, members } = modules;
  await bus.start();
  await registry.start();
  apiKeys.start();
  billing.start();
  events.start();
  webhooks.start();
  domains.start();
  health.start();
  app.addHook('onClose', async () => {
    await billing.stop();
    events.stop();
    // In-flight deliveries finish (each within its 10 s timeout) before the database closes.
    await webhooks.stop();
    await domains.stop();
    members.stop();
    health.stop();
    await apiKeys.stop();
    await bus.stop();
    // A store passed in (Redis) belongs to the caller, who closes it.
    if (!deps.rateLimitStore) await rateLimitStore.close();
  });
}
