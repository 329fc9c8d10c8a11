// oidc-provider ships no types (and @types/oidc-provider trails its releases): the part the tests use.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface OidcContext {
    oidc: { params?: Record<string, unknown> };
  }
  interface Account {
    accountId: string;
    claims(): Promise<Record<string, unknown>>;
  }
  interface Configuration {
    clients?: Array<Record<string, unknown>>;
    pkce?: { required?: () => boolean };
    claims?: Record<string, string[]>;
    features?: Record<string, { enabled: boolean }>;
    issueRefreshToken?: () => Promise<boolean>;
    cookies?: { keys: string[] };
    ttl?: Record<string, number>;
    findAccount?: (ctx: unknown, id: string) => Promise<Account | undefined>;
    /** The provider's signing keys (private JWKs). */
    jwks?: { keys: Array<Record<string, unknown>> };
    scopes?: string[];
    /** false: the claims the scopes ask for go in the ID token too. */
    conformIdTokenClaims?: boolean;
  }
  /** A token model's lookup: the token while the provider still honours it, else undefined. */
  interface TokenModel {
    find(value: string): Promise<object | undefined>;
  }
  // biome-ignore lint/style/noDefaultExport: the module's real shape
  export default class Provider {
    AccessToken: TokenModel;
    RefreshToken: TokenModel;
    constructor(issuer: string, configuration?: Configuration);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: 'grant.success', listener: (ctx: OidcContext) => void): this;
    /** A token was stored; an opaque token's value is its `jti`. */
    on(event: 'access_token.saved' | 'refresh_token.saved', listener: (token: { jti: string }) => void): this;
  }
}
