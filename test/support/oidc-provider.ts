import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  tokenEndpointAuth?: 'client_secret_basic' | 'client_secret_post';
}

export interface TestProvider {
  issuer: string;
  provider: Provider;
  /** POSTs to the token endpoint seen so far (code exchanges and refreshes). */
  tokenRequests: { count: number; grantTypes: string[] };
  /** While true, the token endpoint answers 503 without reaching the provider. */
  tokenEndpointDown: boolean;
  /**
   * While set, each token request waits for it before the provider handles it: a test does something
   * during a code exchange (deletes what the flow was for) and then lets the exchange go on.
   */
  beforeToken: (() => Promise<void>) | undefined;
  /** POSTs to the RFC 7009 revocation endpoint seen so far. */
  revocationRequests: { count: number };
  /** While true, the revocation endpoint answers 503 without reaching the provider. */
  revocationEndpointDown: boolean;
  close(): Promise<void>;
}

/**
 * A real OpenID provider (panva's oidc-provider, the certified implementation) on 127.0.0.1 with its
 * development login and consent pages. The only wrapping is a counter and an outage switch in front of
 * its token endpoint and its revocation endpoint.
 */
export async function startTestProvider(clients: TestClient[], port = 0): Promise<TestProvider> {
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const state = {
    tokenRequests: { count: 0, grantTypes: [] as string[] },
    revocationRequests: { count: 0 },
  };
  const server: Server = createServer((req, res) => {
    if (req.method === 'POST' && (req.url === '/token' || req.url?.startsWith('/token?'))) {
      state.tokenRequests.count += 1;
      if (result.tokenEndpointDown) {
        res.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance');
        return;
      }
      const before = result.beforeToken;
      if (before) {
        before().then(
          () => handler!(req, res),
          (error: unknown) => res.writeHead(500).end(String(error)),
        );
        return;
      }
    }
    if (req.method === 'POST' && req.url?.startsWith('/token/revocation')) {
      state.revocationRequests.count += 1;
      if (result.revocationEndpointDown) {
        res.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance');
        return;
      }
    }
    handler!(req, res);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: clients.map((client) => ({
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uris: client.redirectUris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: client.tokenEndpointAuth ?? 'client_secret_basic',
    })),
    pkce: { required: () => true },
    // `github` is a custom scope that makes userinfo look like GitHub's /user (numeric id, login), so the
    // github preset can be exercised against this provider through endpoint overrides.
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name'],
      github: ['id', 'login'],
    },
    features: { devInteractions: { enabled: true }, revocation: { enabled: true } },
    issueRefreshToken: async () => true,
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 60,
      IdToken: 3600,
      RefreshToken: 86_400,
      Interaction: 600,
      Session: 3600,
      Grant: 86_400,
    },
    cookies: { keys: ['test-provider-cookie-key-0123456789'] },
    async findAccount(_ctx, id) {
      return {
        accountId: id,
        claims: async () => ({
          sub: id,
          email: `${id}@provider.test`,
          email_verified: true,
          name: id,
          id: 4242,
          login: `${id}-gh`,
        }),
      };
    },
  });
  provider.on('grant.success', (ctx) => {
    const grantType = (ctx.oidc.params?.grant_type as string | undefined) ?? 'unknown';
    state.tokenRequests.grantTypes.push(grantType);
  });
  handler = provider.callback();
  const result: TestProvider = {
    issuer,
    provider,
    tokenRequests: state.tokenRequests,
    tokenEndpointDown: false,
    beforeToken: undefined,
    revocationRequests: state.revocationRequests,
    revocationEndpointDown: false,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
  return result;
}

/** A minimal cookie jar for one origin: enough to carry the provider's interaction cookies. */
class CookieJar {
  private readonly cookies = new Map<string, string>();
  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

export interface BrowserOptions {
  login?: string;
  /** Press "[ Cancel ]" on the login page instead of signing in (the provider answers access_denied). */
  cancel?: boolean;
}

/**
 * Plays the user's browser at the provider: follows its redirects, signs in on its login page, approves its
 * consent page, and stops at the redirect back to `callbackPrefix`, which it answers (without calling it).
 */
export async function authorizeAtProvider(
  authorizationUrl: string,
  callbackPrefix: string,
  options: BrowserOptions = {},
): Promise<URL> {
  const jar = new CookieJar();
  let url = new URL(authorizationUrl);
  let init: RequestInit = { method: 'GET' };
  for (let step = 0; step < 20; step += 1) {
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: jar.header() },
    });
    jar.store(response);
    if (response.status >= 300 && response.status < 400) {
      const next = new URL(response.headers.get('location')!, url);
      if (next.href.startsWith(callbackPrefix)) return next;
      url = next;
      init = { method: 'GET' };
      continue;
    }
    const html = await response.text();
    if (response.status !== 200)
      throw new Error(
        `provider answered ${response.status}: ${html.replace(/<style[\s\S]*<\/style>/, '').slice(0, 600)}`,
      );
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!prompt || !action) throw new Error(`unexpected provider page: ${html.slice(0, 300)}`);
    if (options.cancel) {
      const abort = /href="([^"]*\/abort)"/.exec(html)?.[1];
      if (!abort) throw new Error('no cancel link on the provider page');
      url = new URL(abort.replaceAll('&amp;', '&'), url);
      init = { method: 'GET' };
      continue;
    }
    const form = new URLSearchParams({ prompt });
    if (prompt === 'login') {
      form.set('login', options.login ?? 'alice');
      form.set('password', 'any password');
    }
    url = new URL(action.replaceAll('&amp;', '&'), url);
    init = {
      method: 'POST',
      body: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    };
  }
  throw new Error('too many steps at the provider');
}
