import { z } from 'zod';
import { PRESET_KEYS } from '../oauth/index.js';

const endpoint = z.string().url().max(2048);

export const createIntegrationBody = z
  .object({
    presetKey: z
      .string()
      .min(1)
      .max(64)
      .meta({ description: `One of ${PRESET_KEYS.join(', ')}` }),
    clientId: z.string().min(1).max(512),
    clientSecret: z.string().min(1).max(4096),
    scopes: z
      .array(z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'a scope is printable ASCII without spaces'))
      .max(100)
      .optional()
      .meta({ description: "Requested scopes; default: the preset's" }),
    issuer: endpoint.optional().meta({
      description: 'OpenID issuer (required for `oidc`); endpoints come from its discovery document',
    }),
    authorizationEndpoint: endpoint.optional(),
    tokenEndpoint: endpoint.optional(),
    userinfoEndpoint: endpoint.optional(),
    tokenEndpointAuth: z.enum(['client_secret_basic', 'client_secret_post']).optional(),
    verified: z.boolean(),
  })
  .strict()
  .meta({ id: 'CreateIntegrationRequest' });
export type CreateIntegrationInput = z.infer<typeof createIntegrationBody>;

/** What owners and admins register (docs/organization-api.md): never `verified`, which takes an authorization. */
export const registerIntegrationBody = createIntegrationBody
  .omit({ verified: true })
  .meta({ id: 'RegisterIntegrationRequest' });
export type RegisterIntegrationInput = z.infer<typeof registerIntegrationBody>;

/** A change to an integration, appended as a new (unverified) version; the secret is kept unless sent. */
export const updateIntegrationBody = createIntegrationBody
  .omit({ presetKey: true, verified: true })
  .partial()
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'give at least one field to change')
  .meta({ id: 'UpdateIntegrationRequest' });
export type UpdateIntegrationInput = z.infer<typeof updateIntegrationBody>;

const integrationVersionSchema = z
  .object({
    id: z.string(),
    number: z.number().int(),
    clientId: z.string(),
    scopes: z.array(z.string()),
    issuer: z.string().nullable(),
    authorizationEndpoint: z.string(),
    tokenEndpoint: z.string(),
    userinfoEndpoint: z.string().nullable(),
    tokenEndpointAuth: z.enum(['client_secret_basic', 'client_secret_post']),
    verified: z.boolean(),
    createdAt: z.string(),
  })
  .meta({ id: 'IntegrationVersion', description: 'Immutable; the client secret is never returned.' });

export const integrationSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    presetKey: z.string(),
    presetName: z.string().meta({ description: 'The provider as people know it (GitHub, not github)' }),
    version: integrationVersionSchema,
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Integration' });
export type IntegrationRecord = z.infer<typeof integrationSchema>;

export const presetSchema = z
  .object({
    key: z.string(),
    name: z.string().meta({ description: 'The provider as people know it' }),
    issuerRequired: z.boolean().meta({ description: 'Registering it needs the OpenID issuer URL (oidc)' }),
    defaultScopes: z.array(z.string()),
    redirectUri: z.string().meta({
      description: 'The redirect URI to register at the provider for this preset (connect and verify use it)',
    }),
  })
  .meta({ id: 'OAuthPreset' });
