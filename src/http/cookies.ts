/**
 * Cookies, without a plugin: only the session resolver and the OAuth callback read one, only login, logout
 * and OAuth start/callback set one, so no per-request parsing hook or per-reply state is needed.
 */

/** One cookie's value from a Cookie header (the last one wins when a name repeats). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  let found: string | undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) found = part.slice(eq + 1).trim();
  }
  return found;
}

export interface CookieOptions {
  path: string;
  httpOnly: boolean;
  sameSite: 'Lax' | 'Strict';
  secure: boolean;
  expires?: Date;
  maxAgeS?: number;
}

const COOKIE_VALUE = /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*$/;

/** A Set-Cookie header value. The value must already be cookie-safe (ours are base62, base64url, JWE). */
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  if (!COOKIE_VALUE.test(value)) throw new Error(`cookie ${name}: value is not cookie-safe`);
  let cookie = `${name}=${value}`;
  if (options.maxAgeS !== undefined) cookie += `; Max-Age=${Math.floor(options.maxAgeS)}`;
  if (options.expires) cookie += `; Expires=${options.expires.toUTCString()}`;
  cookie += `; Path=${options.path}`;
  if (options.httpOnly) cookie += '; HttpOnly';
  cookie += `; SameSite=${options.sameSite}`;
  if (options.secure) cookie += '; Secure';
  return cookie;
}

/** A Set-Cookie value that makes the browser forget the cookie (same name, path and attributes). */
export const expiredCookie = (name: string, options: CookieOptions): string =>
  serializeCookie(name, '', { ...options, maxAgeS: 0, expires: new Date(0) });
