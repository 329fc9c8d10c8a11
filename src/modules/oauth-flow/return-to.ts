import { validationFailed } from '../../http/errors.js';

/** C0 controls, space, DEL and backslashes: browsers strip or reinterpret them, so they never pass. */
const suspicious = (value: string) =>
  [...value].some((char) => {
    const code = char.charCodeAt(0);
    return code <= 0x20 || code === 0x7f || char === '\\';
  });

/**
 * `returnTo` (docs/oauth.md): a relative path, or an absolute http(s) URL whose origin is the console's or one
 * of `allowedOrigins`. Relative paths are resolved against the console URL and must stay on its origin, so
 * `//evil.test`, `/\evil.test` and friends are refused. Answers the absolute URL to redirect to.
 */
export function resolveReturnTo(
  returnTo: string | undefined,
  consoleUrl: string,
  allowedOrigins: readonly string[],
): string {
  const consoleOrigin = new URL(consoleUrl).origin;
  if (returnTo === undefined || returnTo === '') return new URL('/', consoleUrl).href;
  const refuse = () => validationFailed('returnTo', 'must be a relative path or a URL on an allowed origin');
  if (returnTo.length > 2048 || suspicious(returnTo)) throw refuse();
  if (returnTo.startsWith('/')) {
    if (returnTo.startsWith('//')) throw refuse();
    const resolved = new URL(returnTo, consoleUrl);
    // `/..//evil.test` normalises to the path `//evil.test`: harmless here, an open redirect to anything
    // that later reuses the path alone, so it is refused too.
    if (resolved.origin !== consoleOrigin || resolved.pathname.startsWith('//')) throw refuse();
    return resolved.href;
  }
  if (!URL.canParse(returnTo)) throw refuse();
  const url = new URL(returnTo);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse();
  if (url.username || url.password) throw refuse();
  // Compare the parsed origin with the original text's scheme-and-authority: `https:evil.test` parses, but
  // only a literal `scheme://host` prefix is accepted, so no parser leniency decides where users land.
  if (!returnTo.toLowerCase().startsWith(`${url.protocol}//`)) throw refuse();
  const allowed = new Set([consoleOrigin, ...allowedOrigins.map((origin) => new URL(origin).origin)]);
  if (!allowed.has(url.origin) || url.pathname.startsWith('//')) throw refuse();
  return url.href;
}

/** The redirect carrying a flow's outcome: the given parameters added to the return URL's query. */
export function withOutcome(returnTo: string, params: Record<string, string | undefined>): string {
  const url = new URL(returnTo);
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.set(key, value);
  }
  return url.href;
}
