import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { count } from 'drizzle-orm';
import type { AppContext } from './app.js';
import { DEMO_EXPERTS } from './bootstrap-demo.js';
import { randomBase62 } from './lib/secrets.js';
import { organizations } from './modules/tenancy/index.js';

/** What `./.cadre-data/bootstrap.json` holds: secrets, hence mode 0600 and never printed. */
interface BootstrapFile {
  adminToken: string;
  organization?: { id: string; slug: string };
  owner?: { id: string; email: string; password?: string };
  apiKey?: string;
}

export const bootstrapPath = (dataDir: string) => join(dataDir, 'bootstrap.json');

function readBootstrap(path: string): BootstrapFile | undefined {
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, 'utf8')) as BootstrapFile;
}

/** Who the demo owner is (the start-up banner names them; never their password). */
export const bootstrapOwnerEmail = (path: string): string | undefined => readBootstrap(path)?.owner?.email;

function writeBootstrap(path: string, file: BootstrapFile): void {
  writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** The embedded quick start's admin token: generated once, then kept in bootstrap.json across restarts. */
export function loadOrCreateAdminToken(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true });
  const path = bootstrapPath(dataDir);
  const existing = readBootstrap(path);
  if (existing?.adminToken) return existing.adminToken;
  const adminToken = randomBase62(48);
  writeBootstrap(path, { ...existing, adminToken });
  return adminToken;
}

/**
 * On an empty database: organization `demo` (personal), owner `demo@localhost` with a generated console
 * password, an owner API key, and a few demo Experts. A data directory seeded before passwords existed gets
 * its owner's password on the next start.
 */
export async function seedDemoOrganization(context: AppContext, dataDir: string): Promise<string> {
  const path = bootstrapPath(dataDir);
  const [row] = await context.database.db.select({ total: count() }).from(organizations);
  if (row?.total !== 0) {
    await ensureOwnerPassword(context, path);
    return path;
  }
  const created = await context.tenancy.createOrganization(
    {
      slug: 'demo',
      name: 'Demo',
      accountType: 'personal',
      owner: { email: 'demo@localhost', name: 'Demo Owner' },
    },
    (tx, { organization, owner }) =>
      context.apiKeys.insertKey(
        tx,
        { kind: 'admin' },
        { organizationId: organization.id, userId: owner.id },
        { name: 'bootstrap owner key', grants: { type: 'organization', permissions: ['*'] } },
      ),
  );
  const password = randomBase62(24);
  await context.tenancy.setPassword(created.owner.id, password);
  const file = readBootstrap(path);
  writeBootstrap(path, {
    adminToken: file?.adminToken ?? randomBase62(48),
    organization: { id: created.organization.id, slug: created.organization.slug },
    owner: { id: created.owner.id, email: created.owner.email, password },
    apiKey: created.extra.key,
  });
  const publisher = {
    kind: 'apiKey' as const,
    apiKeyId: created.extra.id,
    userId: created.owner.id,
    organizationId: created.organization.id,
    role: 'owner' as const,
    grants: { type: 'organization' as const, permissions: ['*' as const] },
  };
  for (const expert of DEMO_EXPERTS) await context.registry.publish(publisher, expert);
  return path;
}

async function ensureOwnerPassword(context: AppContext, path: string): Promise<void> {
  const file = readBootstrap(path);
  if (!file?.owner || file.owner.password) return;
  const password = randomBase62(24);
  try {
    await context.tenancy.setPassword(file.owner.id, password);
  } catch {
    return; // The demo owner no longer exists: nothing to sign in as.
  }
  writeBootstrap(path, { ...file, owner: { ...file.owner, password } });
}
