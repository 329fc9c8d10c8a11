import { z } from 'zod';

/**
 * `server.json` as the official MCP Registry defines it (schema 2025-09-29, the document of the v0.1 API):
 * written here in zod, the single source of the publish body's validation, its OpenAPI and its types
 * (docs/mcp-registry.md "What a server.json may hold"). Where the official schema is closed (a package, an
 * icon) this one is too; where it is open (the server's own keys, `_meta`) unknown keys are kept as sent.
 */

/**
 * A version range rather than one version ("^1.2.3", "~1.2", ">=1", "1.x", "1.*", "1 - 2", "a || b"): the
 * registry publishes exact versions only.
 */
function isVersionRange(version: string): boolean {
  return /[\^~<>=*]|\|\||\s-\s/.test(version) || /(^|\.)[xX](\.|$)/.test(version);
}

const exactVersion = (what: string) =>
  z
    .string()
    .min(1)
    .max(255)
    .refine((version) => version !== 'latest', `${what} must be a specific version, not "latest"`)
    .refine((version) => !isVersionRange(version), `${what} must be a specific version, not a range`);

const httpsUrl = z.url({ protocol: /^https?$/ });

const input = {
  description: z.string().optional(),
  isRequired: z.boolean().optional(),
  format: z.enum(['string', 'number', 'boolean', 'filepath']).optional(),
  value: z.string().optional(),
  isSecret: z.boolean().optional(),
  default: z.string().optional(),
  placeholder: z.string().optional(),
  choices: z.array(z.string()).optional(),
};
const inputSchema = z.looseObject(input);
const withVariables = { ...input, variables: z.record(z.string(), inputSchema).optional() };

/** A header or an environment variable: a name, and how its value is given (`isSecret` for secrets). */
const keyValueInputSchema = z.looseObject({ ...withVariables, name: z.string().min(1) });

const positionalArgument = z
  .looseObject({
    ...withVariables,
    type: z.literal('positional'),
    valueHint: z.string().optional(),
    isRepeated: z.boolean().optional(),
  })
  .refine((argument) => argument.valueHint !== undefined || argument.value !== undefined, {
    message: 'a positional argument needs valueHint or value',
  });
const namedArgument = z.looseObject({
  ...withVariables,
  type: z.literal('named'),
  name: z.string().min(1),
  isRepeated: z.boolean().optional(),
});
const argumentSchema = z.discriminatedUnion('type', [positionalArgument, namedArgument]);

/** A URL, or a template starting with `{variable}` (resolved by the client). */
const urlTemplate = z
  .string()
  .regex(
    /^(https?:\/\/\S+|\{[a-zA-Z_][a-zA-Z0-9_]*\}\S*)$/,
    'must be an http(s) URL or start with a {variable}',
  );

const stdioTransport = z.looseObject({ type: z.literal('stdio') });
const streamableHttpTransport = z.looseObject({
  type: z.literal('streamable-http'),
  url: urlTemplate,
  headers: z.array(keyValueInputSchema).optional(),
});
const sseTransport = z.looseObject({
  type: z.literal('sse'),
  url: urlTemplate,
  headers: z.array(keyValueInputSchema).optional(),
});

const REGISTRY_TYPES = ['npm', 'pypi', 'nuget', 'oci', 'mcpb'] as const;

const packageSchema = z.strictObject({
  registryType: z.enum(REGISTRY_TYPES),
  registryBaseUrl: httpsUrl.optional(),
  identifier: z.string().min(1),
  version: exactVersion('package version'),
  fileSha256: z
    .string()
    .regex(/^[a-f0-9]{64}$/)
    .optional(),
  runtimeHint: z.string().optional(),
  transport: z.discriminatedUnion('type', [stdioTransport, streamableHttpTransport, sseTransport]),
  runtimeArguments: z.array(argumentSchema).optional(),
  packageArguments: z.array(argumentSchema).optional(),
  environmentVariables: z.array(keyValueInputSchema).optional(),
});

const remoteVariables = { variables: z.record(z.string(), inputSchema).optional() };
const remoteSchema = z.discriminatedUnion('type', [
  streamableHttpTransport.extend(remoteVariables),
  sseTransport.extend(remoteVariables),
]);

const iconSchema = z.strictObject({
  src: z.url({ protocol: /^https$/ }).max(255),
  mimeType: z.enum(['image/png', 'image/jpeg', 'image/jpg', 'image/svg+xml', 'image/webp']).optional(),
  sizes: z.array(z.string().regex(/^(\d+x\d+|any)$/)).optional(),
  theme: z.enum(['light', 'dark']).optional(),
});

const repositorySchema = z.looseObject({
  url: httpsUrl,
  source: z.string().min(1),
  id: z.string().optional(),
  subfolder: z.string().optional(),
});

/** The server name: reverse-DNS namespace, exactly one `/`, then the server's own name. */
export const serverNameSchema = z
  .string()
  .min(3)
  .max(200)
  .regex(
    /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/,
    'must be a reverse-DNS namespace, one "/", and a name (e.g. com.example/weather)',
  );

export const serverJsonSchema = z
  .looseObject({
    $schema: z.url().optional(),
    name: serverNameSchema,
    description: z.string().min(1).max(100),
    title: z.string().min(1).max(100).optional(),
    version: exactVersion('version'),
    websiteUrl: httpsUrl.optional(),
    icons: z.array(iconSchema).optional(),
    repository: repositorySchema.optional(),
    packages: z.array(packageSchema).optional(),
    remotes: z.array(remoteSchema).optional(),
    _meta: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({
    id: 'McpServerJson',
    description: 'An MCP server as the MCP Registry describes it (server.json, schema 2025-09-29).',
  });

export type ServerJson = z.infer<typeof serverJsonSchema>;
