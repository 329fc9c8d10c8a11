import { type KeyRing, KeyRingError } from '../../lib/key-ring.js';

export interface ReencryptOptions {
  batchSize?: number;
  /** Stop after this many rows (to bound one run; running again continues). */
  maxRows?: number;
}

/**
 * A module's secrets under the key ring, re-encrypted by the rotation. A port: the rotation knows no module's
 * tables; the module that owns the rows rewrites them, each guarded by its old ciphertext, and visits them in
 * key order after a cursor, so a row that cannot be rewritten is not retried forever within one run.
 */
export interface SecretsUnderKeyRing {
  /**
   * Rewrites up to `budget` rows whose ciphertext is not under `currentPrefix`, reading `batchSize` at a time
   * (`rewrap` gives the new ciphertext, or undefined for a row no key opens, which it records). Returns the
   * rows visited and rewritten.
   */
  reencrypt(
    rewrap: (id: string, value: string, aad: string) => string | undefined,
    currentPrefix: string,
    budget: number,
    batchSize: number,
  ): Promise<{ visited: number; rewritten: number }>;
  /** Rows still under an older key. */
  remaining(currentPrefix: string): Promise<number>;
}

/** The other modules' secrets the rotation covers, by the result's field (the composition hands them in). */
export interface OtherSecrets {
  /** Webhooks: each endpoint's signing secret (and the previous one, during a rotation of it). */
  webhookEndpoints: SecretsUnderKeyRing;
  /** Single sign-on: each organization's identity provider client secret. */
  ssoProviders: SecretsUnderKeyRing;
}

/** Every secret the rotation covers, by the result's field: OAuth's, and the other modules'. */
export interface RotatedSecrets extends OtherSecrets {
  /** Each integration version's client secret. */
  integrationVersions: SecretsUnderKeyRing;
  /** Each connection's access token (and refresh token, when it has one). */
  connections: SecretsUnderKeyRing;
}

/** The order a run visits them in, which a bounded run (`maxRows`) makes visible. */
const ROTATED: readonly (keyof RotatedSecrets)[] = [
  'integrationVersions',
  'connections',
  'webhookEndpoints',
  'ssoProviders',
];

export interface ReencryptResult {
  integrationVersions: number;
  connections: number;
  /** Webhook endpoints whose signing secret (and previous one, during a rotation) were re-encrypted. */
  webhookEndpoints: number;
  /** Identity providers whose client secret was re-encrypted. */
  ssoProviders: number;
  /** Rows whose ciphertext no key of the ring opens (damaged, or moved between rows): skipped, listed here. */
  unreadable: string[];
  /** True when no ciphertext under an older key remains. */
  done: boolean;
}

/**
 * `cadre admin rotate-encryption-key`: re-encrypts every stored secret under the newest key of the ring.
 * Each row is rewritten in its own statement, guarded by its old ciphertext (a concurrent token refresh
 * wins and is not overwritten), so an interrupted run leaves every row readable and the next run simply
 * continues with the rows still under an old key. Rows no key opens are reported, not fatal (one damaged row
 * must not block a rotation).
 */
export function createKeyRotation(keyRing: () => KeyRing, secrets: RotatedSecrets) {
  return {
    async reencryptAll(options: ReencryptOptions = {}): Promise<ReencryptResult> {
      const ring = keyRing();
      const prefix = `v1.${ring.currentKeyId}.`;
      const batchSize = options.batchSize ?? 100;
      let budget = options.maxRows ?? Number.POSITIVE_INFINITY;
      const result = {
        integrationVersions: 0,
        connections: 0,
        webhookEndpoints: 0,
        ssoProviders: 0,
        unreadable: [] as string[],
      };
      /** The new ciphertext, or undefined (row recorded as unreadable) when the old one does not open. */
      const rewrap = (id: string, value: string, aad: string): string | undefined => {
        try {
          return ring.encrypt(ring.decrypt(value, aad), aad);
        } catch (error) {
          if (error instanceof KeyRingError) {
            if (!result.unreadable.includes(id)) result.unreadable.push(id);
            return undefined;
          }
          throw error;
        }
      };

      for (const field of ROTATED) {
        const run = await secrets[field].reencrypt(rewrap, prefix, budget, batchSize);
        budget -= run.visited;
        result[field] += run.rewritten;
      }
      let remaining = 0;
      for (const field of ROTATED) remaining += await secrets[field].remaining(prefix);
      return { ...result, done: remaining === 0 };
    },
  };
}
