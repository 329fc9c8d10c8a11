import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createStateCookieCodec, type StatePayload } from '../modules/oauth-flow/state-cookie.js';
import { generateKeyEntry, KeyRingError, parseKeyRing } from './key-ring.js';

describe('key ring', () => {
  const k1 = generateKeyEntry('k1');
  const k2 = generateKeyEntry('k2');

  it('round-trips any text, bound to its associated data', () => {
    const ring = parseKeyRing(k1);
    fc.assert(
      fc.property(fc.string(), fc.string(), (plaintext, aad) => {
        const sealed = ring.encrypt(plaintext, aad);
        expect(sealed.startsWith('v1.k1.')).toBe(true);
        expect(ring.decrypt(sealed, aad)).toBe(plaintext);
        expect(() => ring.decrypt(sealed, `${aad}x`)).toThrow(KeyRingError);
      }),
    );
  });

  it('uses a fresh IV each time and detects any tampering', () => {
    const ring = parseKeyRing(k1);
    const a = ring.encrypt('secret', 'row-1');
    expect(ring.encrypt('secret', 'row-1')).not.toBe(a);
    const parts = a.split('.');
    for (const index of [2, 3, 4]) {
      const tampered = [...parts];
      tampered[index] = (tampered[index]![0] === 'A' ? 'B' : 'A') + tampered[index]!.slice(1);
      expect(() => ring.decrypt(tampered.join('.'), 'row-1')).toThrow(KeyRingError);
    }
    expect(() => ring.decrypt('garbage', 'row-1')).toThrow(/malformed/);
  });

  it('encrypts with the newest key, still decrypts with older ones, and names the key used', () => {
    const old = parseKeyRing(k1);
    const rotated = parseKeyRing(`${k2}, ${k1}`);
    const before = old.encrypt('token', 'aad');
    expect(rotated.decrypt(before, 'aad')).toBe('token');
    expect(rotated.keyIdOf(before)).toBe('k1');
    const after = rotated.encrypt('token', 'aad');
    expect(rotated.keyIdOf(after)).toBe('k2');
    expect(() => old.decrypt(after, 'aad')).toThrow(/no key k2/);
  });

  it('refuses malformed rings without echoing key material', () => {
    expect(() => parseKeyRing('')).toThrow(/lists no key/);
    expect(() => parseKeyRing('nokeyid')).toThrow(/entry 1: expected keyId:base64key/);
    expect(() => parseKeyRing('k1:c2hvcnQ=')).toThrow(/k1: must be 32 bytes/);
    expect(() => parseKeyRing(`${k1},${k1}`)).toThrow(/appears twice/);
    expect(() => parseKeyRing('bad id:AAAA')).toThrow(KeyRingError);
    try {
      parseKeyRing('k1:c2hvcnQ=');
    } catch (error) {
      expect(String(error)).not.toContain('c2hvcnQ=');
    }
  });
});

describe('state cookie', () => {
  const payload: StatePayload = {
    purpose: 'connect',
    organizationId: 'o',
    userId: 'u',
    projectId: 'p',
    environmentId: 'e',
    presetKey: 'oidc',
    integrationVersionId: 'v',
    state: 's'.repeat(43),
    codeVerifier: 'c'.repeat(43),
    returnTo: 'http://127.0.0.1:3000/',
    expiresAt: 1,
  };

  it('opens what it sealed, also after the key ring was rotated', async () => {
    const k1 = generateKeyEntry('k1');
    const sealed = await createStateCookieCodec(parseKeyRing(k1)).seal(payload);
    expect(sealed.split('.')).toHaveLength(5);
    expect(sealed).not.toContain(payload.codeVerifier);
    expect(await createStateCookieCodec(parseKeyRing(k1)).open(sealed)).toEqual(payload);
    const rotated = createStateCookieCodec(parseKeyRing(`${generateKeyEntry('k2')},${k1}`));
    expect(await rotated.open(sealed)).toEqual(payload);
  });

  it('reads a cookie of another deployment, a tampered one or garbage as no state', async () => {
    const codec = createStateCookieCodec(parseKeyRing(generateKeyEntry('k1')));
    const foreign = await createStateCookieCodec(parseKeyRing(generateKeyEntry('k1'))).seal(payload);
    expect(await codec.open(foreign)).toBeUndefined();
    const sealed = await codec.seal(payload);
    const parts = sealed.split('.');
    parts[3] = (parts[3]![0] === 'A' ? 'B' : 'A') + parts[3]!.slice(1);
    expect(await codec.open(parts.join('.'))).toBeUndefined();
    expect(await codec.open('')).toBeUndefined();
    expect(await codec.open(undefined)).toBeUndefined();
    expect(await codec.open('a.b.c.d.e')).toBeUndefined();
  });
});
