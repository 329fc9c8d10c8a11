// A local OpenID provider for trying the OAuth flow by hand (docs/oauth.md): panva's oidc-provider with
// its development login page (any login, any password), on http://127.0.0.1:4000, with one client whose
// redirect URI is a local Cadre's oidc callback. Run: npx tsx test/dev/oidc-provider.ts
import { startTestProvider } from '../support/oidc-provider.js';

const port = Number(process.env.PROVIDER_PORT ?? 4000);
const cadre = process.env.CADRE_URL ?? 'http://127.0.0.1:3000';
const provider = await startTestProvider(
  [
    {
      clientId: 'cadre-local',
      clientSecret: 'cadre-local-secret',
      redirectUris: [`${cadre}/api/oauth/callback/oidc`],
    },
  ],
  port,
);
console.log(`OpenID provider: ${provider.issuer} (client cadre-local / cadre-local-secret)`);
process.on('SIGINT', () => void provider.close().then(() => process.exit(0)));
process.on('SIGTERM', () => void provider.close().then(() => process.exit(0)));
