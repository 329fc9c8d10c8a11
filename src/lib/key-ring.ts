import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM under a key ring. `CADRE_ENCRYPTION_KEYS` lists `keyId:base64key` pairs, newest first: new
 * ciphertexts use the first key, every listed key still decrypts, so a key is rotated by prepending a new
 * one, running `reencryptAll()` and, once nothing uses the old key, dropping it.
 *
 * Ciphertext format: `v1.<keyId>.<iv>.<ciphertext>.<tag>` (base64url parts). The caller's associated data
 * (the identity of the row and field the value belongs to) is authenticated but not stored: a ciphertext
 * copied into another row or field fails to decrypt.
 */
export interface KeyRing {
  readonly currentKeyId: string;
  readonly keyIds: readonly string[];
  encrypt(plaintext: string, associatedData: string): string;
  decrypt(ciphertext: string, associatedData: string): string;
  /** The id of the key a ciphertext was made with (without decrypting it). */
  keyIdOf(ciphertext: string): string;
  /** A 32-byte key derived from a ring key for another purpose (the state cookie), by key id. */
  derivedKey(keyId: string, purpose: string): Uint8Array;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
const VERSION = 'v1';

export class KeyRingError extends Error {
  override name = 'KeyRingError';
}

/** Parses `CADRE_ENCRYPTION_KEYS`; throws a message naming the faulty entry (never the key material). */
export function parseKeyRing(spec: string): KeyRing {
  const entries = spec
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new KeyRingError('CADRE_ENCRYPTION_KEYS lists no key');
  const keys = new Map<string, Buffer>();
  entries.forEach((entry, index) => {
    const colon = entry.indexOf(':');
    const id = colon > 0 ? entry.slice(0, colon) : '';
    if (!KEY_ID.test(id)) {
      throw new KeyRingError(
        `CADRE_ENCRYPTION_KEYS entry ${index + 1}: expected keyId:base64key (keyId [A-Za-z0-9_-]{1,32})`,
      );
    }
    const material = Buffer.from(entry.slice(colon + 1), 'base64');
    if (material.length !== 32) {
      throw new KeyRingError(`CADRE_ENCRYPTION_KEYS key ${id}: must be 32 bytes, base64-encoded`);
    }
    if (keys.has(id)) throw new KeyRingError(`CADRE_ENCRYPTION_KEYS key id ${id} appears twice`);
    keys.set(id, material);
  });
  return createKeyRing(keys);
}

/** A new random key entry (`keyId:base64key`) for `CADRE_ENCRYPTION_KEYS`. */
export function generateKeyEntry(keyId: string): string {
  if (!KEY_ID.test(keyId)) throw new KeyRingError(`invalid key id ${keyId}`);
  return `${keyId}:${randomBytes(32).toString('base64')}`;
}

function createKeyRing(keys: Map<string, Buffer>): KeyRing {
  const keyIds = [...keys.keys()];
  const currentKeyId = keyIds[0]!;
  const keyFor = (id: string) => {
    const key = keys.get(id);
    if (!key) throw new KeyRingError(`no key ${id} in the key ring`);
    return key;
  };
  const split = (ciphertext: string) => {
    const parts = ciphertext.split('.');
    if (parts.length !== 5 || parts[0] !== VERSION) throw new KeyRingError('malformed ciphertext');
    return parts as [string, string, string, string, string];
  };
  return {
    currentKeyId,
    keyIds,
    encrypt(plaintext, associatedData) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keyFor(currentKeyId), iv);
      cipher.setAAD(Buffer.from(associatedData, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [VERSION, currentKeyId, iv, body, tag]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join('.');
    },
    decrypt(ciphertext, associatedData) {
      const [, keyId, iv, body, tag] = split(ciphertext);
      const decipher = createDecipheriv('aes-256-gcm', keyFor(keyId), Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(associatedData, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      try {
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
          'utf8',
        );
      } catch {
        throw new KeyRingError('ciphertext does not authenticate (wrong key, row or field)');
      }
    },
    keyIdOf: (ciphertext) => split(ciphertext)[1],
    derivedKey: (keyId, purpose) =>
      new Uint8Array(hkdfSync('sha256', keyFor(keyId), Buffer.alloc(0), `cadre:${purpose}`, 32)),
  };
}
