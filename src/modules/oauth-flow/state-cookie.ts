import { EncryptJWT, jwtDecrypt } from 'jose';
import { z } from 'zod';
import type { KeyRing } from '../../lib/key-ring.js';

export const STATE_COOKIE = 'cadre_oauth_state';
export const STATE_COOKIE_PATH = '/api/oauth';
export const STATE_TTL_SECONDS = 600;
const PURPOSE = 'oauth-state-cookie';

/** What the encrypted, authenticated cookie pins between start and callback (docs/oauth.md). */
const statePayloadSchema = z.object({
  /**
   * `connect` stores a Connection for the environment; `verify` is an owner's test authorization that marks
   * the pinned integration version verified and keeps no tokens (its project and environment are empty).
   */
  purpose: z.enum(['connect', 'verify']).default('connect'),
  organizationId: z.string(),
  userId: z.string(),
  projectId: z.string(),
  environmentId: z.string(),
  presetKey: z.string(),
  integrationVersionId: z.string(),
  state: z.string(),
  codeVerifier: z.string(),
  /** Absolute, already validated. */
  returnTo: z.string(),
  /** Milliseconds since the epoch, compared with the service's clock (not jose's) so tests can move time. */
  expiresAt: z.number().int(),
});
export type StatePayload = z.infer<typeof statePayloadSchema>;

/**
 * The state cookie is a JWE (`dir` + A256GCM) under a key derived from the newest ring key; its `kid` header
 * names the ring key, so cookies issued before a rotation still open. Tampering, a foreign key or a
 * malformed value all read as "no valid state".
 */
export function createStateCookieCodec(keyRing: KeyRing) {
  return {
    async seal(payload: StatePayload): Promise<string> {
      return new EncryptJWT({ ...payload })
        .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: keyRing.currentKeyId })
        .encrypt(keyRing.derivedKey(keyRing.currentKeyId, PURPOSE));
    },

    /** The payload, or undefined when the value is not a cookie this service sealed (expiry is not checked). */
    async open(value: string | undefined): Promise<StatePayload | undefined> {
      if (!value) return undefined;
      try {
        const { payload } = await jwtDecrypt(
          value,
          (header) => {
            if (typeof header.kid !== 'string' || !keyRing.keyIds.includes(header.kid)) {
              throw new Error('unknown key id');
            }
            return keyRing.derivedKey(header.kid, PURPOSE);
          },
          { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] },
        );
        const parsed = statePayloadSchema.safeParse(payload);
        return parsed.success ? parsed.data : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
