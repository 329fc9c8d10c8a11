import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseEnv } from '../../config/env.js';
import { keyRingPath, loadOrCreateKeyRing } from './key-ring-file.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('embedded key ring file', () => {
  it('is generated once (mode 0600) and then reused, so stored secrets stay readable across restarts', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cadre-keys-'));
    dirs.push(dir);
    const first = loadOrCreateKeyRing(join(dir, 'data'));
    const path = keyRingPath(join(dir, 'data'));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toMatch(/^k\d{8}:[A-Za-z0-9+/]{43}=\n$/);
    const sealed = first.encrypt('token', 'aad');
    const second = loadOrCreateKeyRing(join(dir, 'data'));
    expect(second.currentKeyId).toBe(first.currentKeyId);
    expect(second.decrypt(sealed, 'aad')).toBe('token');
  });
});

describe('OAuth environment variables', () => {
  it('parses allowed return origins and the loopback switch, and refuses malformed origins', () => {
    const env = parseEnv({
      CADRE_ALLOWED_RETURN_ORIGINS: 'https://app.example.com, http://localhost:5173',
      CADRE_OAUTH_ALLOW_HTTP_LOOPBACK: 'true',
      CADRE_CONSOLE_URL: 'https://console.example.com',
    });
    expect(env.CADRE_ALLOWED_RETURN_ORIGINS).toEqual(['https://app.example.com', 'http://localhost:5173']);
    expect(env.CADRE_OAUTH_ALLOW_HTTP_LOOPBACK).toBe(true);
    expect(parseEnv({}).CADRE_OAUTH_ALLOW_HTTP_LOOPBACK).toBe(false);
    expect(parseEnv({}).CADRE_ALLOWED_RETURN_ORIGINS).toEqual([]);
    expect(() => parseEnv({ CADRE_ALLOWED_RETURN_ORIGINS: 'app.example.com' })).toThrow(
      /CADRE_ALLOWED_RETURN_ORIGINS/,
    );
    expect(() => parseEnv({ CADRE_OAUTH_ALLOW_HTTP_LOOPBACK: 'yes' })).toThrow(
      /CADRE_OAUTH_ALLOW_HTTP_LOOPBACK/,
    );
  });
});
