/** Absolute http(s) URL without user-info (a return URL may point to the caller's own UI). */
export function isReturnUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password;
}

/**
 * Kept and used as the URL parser wrote it: the parser drops tabs and line breaks that the raw string may
 * hold, and a raw CR/LF would make the later redirect an invalid header.
 */
export const normalizedUrl = (value: string) => new URL(value).href;
