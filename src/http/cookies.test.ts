import { describe, expect, it } from 'vitest';
import { expiredCookie, readCookie, serializeCookie } from './cookies.js';

describe('readCookie', () => {
  it('finds a cookie among others, tolerating spaces; the last of a repeated name wins', () => {
    expect(readCookie('a=1; cadre_session=cs_x ;b=2', 'cadre_session')).toBe('cs_x');
    expect(readCookie('cadre_session=old; cadre_session=new', 'cadre_session')).toBe('new');
    expect(readCookie('xcadre_session=no; =bare; novalue', 'cadre_session')).toBeUndefined();
    expect(readCookie(undefined, 'cadre_session')).toBeUndefined();
    expect(readCookie('', 'cadre_session')).toBeUndefined();
  });
});

describe('serializeCookie', () => {
  const base = { path: '/', httpOnly: true, sameSite: 'Lax', secure: false } as const;

  it('writes the attributes a browser needs, Secure only when asked', () => {
    const expires = new Date('2026-01-02T03:04:05Z');
    expect(serializeCookie('s', 'v1', { ...base, expires })).toBe(
      's=v1; Expires=Fri, 02 Jan 2026 03:04:05 GMT; Path=/; HttpOnly; SameSite=Lax',
    );
    expect(serializeCookie('s', 'v', { ...base, path: '/api/oauth', maxAgeS: 600, secure: true })).toBe(
      's=v; Max-Age=600; Path=/api/oauth; HttpOnly; SameSite=Lax; Secure',
    );
  });

  it('refuses a value that would break out of the cookie (header injection)', () => {
    for (const value of ['a;b', 'a b', 'a\r\nSet-Cookie: x=y', 'a,b', '"q"', 'ü']) {
      expect(() => serializeCookie('s', value, base)).toThrow(/not cookie-safe/);
    }
  });

  it('expires a cookie with both Max-Age=0 and a past Expires', () => {
    expect(expiredCookie('s', base)).toBe(
      's=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/; HttpOnly; SameSite=Lax',
    );
  });
});
