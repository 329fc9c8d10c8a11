import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * The MCP Registry's contract, written from its own documents in modelcontextprotocol/registry (MIT):
 * `docs/reference/api/openapi.yaml` (the v0.1 paths; its components ServerList, ServerResponse with the
 * closed `io.modelcontextprotocol.registry/official` object, ServerDetail, Package, Argument, KeyValueInput,
 * transports, Icon, Repository) and `docs/reference/server-json/server.schema.json` (2025-09-29: a package's
 * version required and never "latest", no key beyond the schema's on a package). Where the two differ, the
 * stricter rule is kept, so an answer passing here passes both. Transcribed, not copied: the tests hold
 * Cadre's answers to it (test/mcp/contract.test.ts).
 */
const input = {
  type: 'object',
  properties: {
    description: { type: 'string' },
    isRequired: { type: 'boolean' },
    format: { type: 'string', enum: ['string', 'number', 'boolean', 'filepath'] },
    value: { type: 'string' },
    isSecret: { type: 'boolean' },
    default: { type: 'string' },
    placeholder: { type: 'string' },
    choices: { type: 'array', items: { type: 'string' } },
  },
};
const withVariables = {
  allOf: [
    { $ref: '#/definitions/Input' },
    {
      type: 'object',
      properties: { variables: { type: 'object', additionalProperties: { $ref: '#/definitions/Input' } } },
    },
  ],
};
const urlTemplate = { type: 'string', pattern: '^(https?://[^\\s]+|\\{[a-zA-Z_][a-zA-Z0-9_]*\\}[^\\s]*)$' };
const httpTransport = (type: string) => ({
  type: 'object',
  required: ['type', 'url'],
  properties: {
    type: { type: 'string', enum: [type] },
    url: urlTemplate,
    headers: { type: 'array', items: { $ref: '#/definitions/KeyValueInput' } },
  },
});

const definitions = {
  Input: input,
  InputWithVariables: withVariables,
  KeyValueInput: {
    allOf: [
      { $ref: '#/definitions/InputWithVariables' },
      { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
    ],
  },
  Argument: {
    anyOf: [
      {
        allOf: [
          { $ref: '#/definitions/InputWithVariables' },
          {
            type: 'object',
            required: ['type'],
            properties: {
              type: { enum: ['positional'] },
              valueHint: { type: 'string' },
              isRepeated: { type: 'boolean' },
            },
            anyOf: [{ required: ['valueHint'] }, { required: ['value'] }],
          },
        ],
      },
      {
        allOf: [
          { $ref: '#/definitions/InputWithVariables' },
          {
            type: 'object',
            required: ['type', 'name'],
            properties: {
              type: { enum: ['named'] },
              name: { type: 'string' },
              isRepeated: { type: 'boolean' },
            },
          },
        ],
      },
    ],
  },
  StdioTransport: {
    type: 'object',
    required: ['type'],
    properties: { type: { type: 'string', enum: ['stdio'] } },
  },
  StreamableHttpTransport: httpTransport('streamable-http'),
  SseTransport: httpTransport('sse'),
  Package: {
    type: 'object',
    additionalProperties: false,
    required: ['registryType', 'identifier', 'version', 'transport'],
    properties: {
      registryType: { type: 'string' },
      registryBaseUrl: { type: 'string', format: 'uri' },
      identifier: { type: 'string' },
      version: { type: 'string', minLength: 1, not: { const: 'latest' } },
      fileSha256: { type: 'string', pattern: '^[a-f0-9]{64}$' },
      runtimeHint: { type: 'string' },
      transport: {
        anyOf: [
          { $ref: '#/definitions/StdioTransport' },
          { $ref: '#/definitions/StreamableHttpTransport' },
          { $ref: '#/definitions/SseTransport' },
        ],
      },
      runtimeArguments: { type: 'array', items: { $ref: '#/definitions/Argument' } },
      packageArguments: { type: 'array', items: { $ref: '#/definitions/Argument' } },
      environmentVariables: { type: 'array', items: { $ref: '#/definitions/KeyValueInput' } },
    },
  },
  RemoteTransport: {
    allOf: [
      { anyOf: [{ $ref: '#/definitions/StreamableHttpTransport' }, { $ref: '#/definitions/SseTransport' }] },
      {
        type: 'object',
        properties: { variables: { type: 'object', additionalProperties: { $ref: '#/definitions/Input' } } },
      },
    ],
  },
  Icon: {
    type: 'object',
    required: ['src'],
    properties: {
      src: { type: 'string', format: 'uri', maxLength: 255 },
      mimeType: {
        type: 'string',
        enum: ['image/png', 'image/jpeg', 'image/jpg', 'image/svg+xml', 'image/webp'],
      },
      sizes: { type: 'array', items: { type: 'string', pattern: '^(\\d+x\\d+|any)$' } },
      theme: { type: 'string', enum: ['light', 'dark'] },
    },
  },
  Repository: {
    type: 'object',
    required: ['url', 'source'],
    properties: {
      url: { type: 'string', format: 'uri' },
      source: { type: 'string' },
      id: { type: 'string' },
      subfolder: { type: 'string' },
    },
  },
  ServerDetail: {
    type: 'object',
    required: ['name', 'description', 'version'],
    properties: {
      name: { type: 'string', minLength: 3, maxLength: 200, pattern: '^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$' },
      description: { type: 'string', minLength: 1, maxLength: 100 },
      title: { type: 'string', minLength: 1, maxLength: 100 },
      repository: { $ref: '#/definitions/Repository' },
      version: { type: 'string', maxLength: 255 },
      websiteUrl: { type: 'string', format: 'uri' },
      icons: { type: 'array', items: { $ref: '#/definitions/Icon' } },
      $schema: { type: 'string', format: 'uri' },
      packages: { type: 'array', items: { $ref: '#/definitions/Package' } },
      remotes: { type: 'array', items: { $ref: '#/definitions/RemoteTransport' } },
      _meta: {
        type: 'object',
        properties: {
          'io.modelcontextprotocol.registry/publisher-provided': {
            type: 'object',
            additionalProperties: true,
          },
        },
      },
    },
  },
  ServerResponse: {
    type: 'object',
    required: ['server'],
    properties: {
      server: { $ref: '#/definitions/ServerDetail' },
      _meta: {
        type: 'object',
        additionalProperties: true,
        properties: {
          'io.modelcontextprotocol.registry/official': {
            type: 'object',
            additionalProperties: false,
            properties: {
              status: { type: 'string', enum: ['active', 'deprecated', 'deleted'] },
              statusMessage: { type: 'string', maxLength: 500 },
              statusChangedAt: { type: 'string', format: 'date-time' },
              publishedAt: { type: 'string', format: 'date-time' },
              updatedAt: { type: 'string', format: 'date-time' },
              isLatest: { type: 'boolean' },
            },
          },
        },
      },
    },
  },
  ServerList: {
    type: 'object',
    required: ['servers'],
    properties: {
      servers: { type: 'array', items: { $ref: '#/definitions/ServerResponse' } },
      metadata: {
        type: 'object',
        properties: { nextCursor: { type: 'string' }, count: { type: 'integer' } },
      },
    },
  },
  /** The 404 of the v0.1 reads: an object whose `error` is a string. */
  NotFound: { type: 'object', required: ['error'], properties: { error: { type: 'string' } } },
};

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats.default(ajv);
ajv.addSchema({ $id: 'mcp-registry', definitions });

export type ContractPart = 'ServerList' | 'ServerResponse' | 'ServerDetail' | 'NotFound';
const validators = new Map<ContractPart, ValidateFunction>();

/** The contract's problems with `value` as `part` (empty when it conforms), each with its JSON pointer. */
export function contractProblems(part: ContractPart, value: unknown): string[] {
  let validate = validators.get(part);
  if (!validate) {
    validate = ajv.compile({ $ref: `mcp-registry#/definitions/${part}` });
    validators.set(part, validate);
  }
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
}
