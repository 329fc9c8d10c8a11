import { z } from 'zod';
import { dataOf } from '../../http/route-kit.js';

const DEFAULT_SESSION_MAX_AGE_SECONDS = 12 * 3600;

export const providerBody = z
  .strictObject({
    issuer: z
      .url()
      .max(500)
      .meta({ description: "The provider's issuer; its /.well-known/openid-configuration is read at once" }),
    clientId: z.string().trim().min(1).max(500),
    clientSecret: z
      .string()
      .min(1)
      .max(2000)
      .optional()
      .meta({ description: 'Write-only; required when none is stored or the issuer or client changes' }),
    groupsClaim: z
      .string()
      .regex(/^[A-Za-z0-9_.:/-]{1,100}$/)
      .default('groups')
      .meta({ description: 'The ID token claim holding the groups the role mapping reads' }),
    sessionMaxAgeSeconds: z
      .number()
      .int()
      .min(300)
      .max(30 * 86_400)
      .default(DEFAULT_SESSION_MAX_AGE_SECONDS)
      .meta({
        description: 'A session made by single sign-on ends after this long: the person signs in again',
      }),
  })
  .meta({ id: 'SsoProviderRequest' });
export type ProviderInput = z.infer<typeof providerBody>;

export const enforcementBody = z
  .strictObject({
    enforced: z.boolean(),
    breakGlassUserIds: z
      .array(z.string().min(1).max(64))
      .max(10)
      .default([])
      .meta({ description: 'Owners who keep their password while enforcement is on (audited at each use)' }),
  })
  .meta({ id: 'SsoEnforcementRequest' });
export type EnforcementInput = z.infer<typeof enforcementBody>;

const providerSchema = z
  .object({
    issuer: z.string(),
    clientId: z.string(),
    clientSecretSet: z.literal(true),
    groupsClaim: z.string(),
    sessionMaxAgeSeconds: z.number().int(),
    redirectUri: z
      .string()
      .meta({ description: "Register it at the provider as the application's redirect URI" }),
    signInUrl: z
      .string()
      .meta({ description: "Starts a sign-in through the provider (the organization's link)" }),
    testedAt: z.string().nullable().meta({ description: 'The last successful test sign-in; null: none yet' }),
    enforced: z.boolean(),
    breakGlassUserIds: z.array(z.string()),
    updatedAt: z.string(),
  })
  .meta({ id: 'SsoProvider' });
export type ProviderRecord = z.infer<typeof providerSchema>;

export const providerAnswer = dataOf(providerSchema);
export const testStartBody = z
  .strictObject({
    returnTo: z.string().max(2048).optional().meta({
      description:
        'A path of the console to come back to (default /settings, where single sign-on is set up)',
    }),
  })
  .meta({ id: 'SsoTestRequest' });
