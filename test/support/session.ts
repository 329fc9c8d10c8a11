import type { HttpResult } from './http.js';
import type { TestServer } from './server.js';

export const PASSWORD = 'correct horse battery staple';

export interface ConsoleLogin {
  /** The `Cookie` request header value carrying the session. */
  cookie: string;
  csrfToken: string;
  res: HttpResult<{ data: { csrfToken: string; organization: { id: string; slug: string } } }>;
}

export async function setPassword(server: TestServer, userId: string, password = PASSWORD) {
  const res = await server.admin('PUT', `/admin/v1/users/${userId}/password`, { password });
  if (res.status !== 200) throw new Error(`setPassword: ${res.status} ${res.text}`);
}

/** Logs in through the API and keeps the cookie the way a browser would. */
export async function login(
  server: TestServer,
  email: string,
  password = PASSWORD,
  organization?: string,
): Promise<ConsoleLogin> {
  const res = await server.request<ConsoleLogin['res']['body']>('POST', '/auth/login', {
    body: { email, password, ...(organization ? { organization } : {}) },
  });
  if (res.status !== 200) throw new Error(`login: ${res.status} ${res.text}`);
  const setCookie = res.headers.getSetCookie().find((value) => value.startsWith('cadre_session='));
  if (!setCookie) throw new Error('login: no cadre_session cookie');
  return { cookie: setCookie.split(';')[0]!, csrfToken: res.body.data.csrfToken, res };
}
