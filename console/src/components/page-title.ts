import { createContext } from 'react';

/** What a route says about its page (`handle` in main.tsx). */
export interface PageHandle {
  /** The page's name in the browser tab. */
  title: string;
  /** A page of the signed-in organization: its name joins the title (`API keys · Acme · Cadre`). */
  organization?: boolean;
}

/** Each route's path and handle (main.tsx), for the shell to name the open page. */
export const PageHandles = createContext<readonly { path: string; handle?: PageHandle }[]>([]);

/** An Expert's page names its key, a comparison its name: the path holds both. */
function expertTitle(path: string): string {
  const rest = path.slice('/experts/'.length);
  let key: string;
  try {
    key = decodeURIComponent(rest);
  } catch {
    key = rest;
  }
  return key.endsWith('/compare') ? `Compare ${key.slice(0, -'/compare'.length)}` : key;
}

/** The browser tab's title: the page, the organization for its own pages, then Cadre. */
export function documentTitle(handle: PageHandle | undefined, path: string, organization?: string): string {
  const page = path.startsWith('/experts/') ? expertTitle(path) : handle?.title;
  const parts = [page, handle?.organization ? organization : undefined, 'Cadre'];
  return parts.filter(Boolean).join(' · ');
}
