import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** The parts of the OpenAPI 3.1 document the security suite reads. */
export interface OpenApiDocument {
  components: {
    securitySchemes: Record<string, { type: string; scheme?: string }>;
    schemas: Record<string, unknown>;
  };
  paths: Record<string, Record<string, OpenApiOperation>>;
}

interface OpenApiOperation {
  operationId: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: 'path' | 'query' | 'header' | 'cookie'; required?: boolean }>;
  requestBody?: { content: Record<string, { schema?: { $ref?: string; properties?: object } }> };
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

export interface Operation {
  id: string;
  method: string;
  /** The documented path, `{name}` placeholders included. */
  path: string;
  /** The security schemes it accepts (`apiKey`, `consoleSession`, `adminToken`). */
  schemes: string[];
  pathParams: string[];
  requiredQuery: string[];
  headers: string[];
  hasBody: boolean;
  /** True when the body schema carries `csrfToken` (the console session sends its token there). */
  csrfInBody: boolean;
  statuses: number[];
  /** The schema the document gives for an answer with this status. */
  responseSchema(status: number): unknown;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every operation whose security accepts an HTTP Bearer scheme (API keys and the admin token). */
export function bearerOperations(document: OpenApiDocument): Operation[] {
  const schemes = document.components.securitySchemes;
  const isBearer = (name: string) => schemes[name]?.type === 'http' && schemes[name]?.scheme === 'bearer';
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      const accepted = (op.security ?? []).flatMap((requirement) => Object.keys(requirement));
      if (!accepted.some(isBearer)) continue;
      const parameters = op.parameters ?? [];
      const body = op.requestBody?.content['application/json']?.schema;
      const bodySchema = body?.$ref ? resolve(document, body.$ref) : body;
      operations.push({
        id: op.operationId,
        method: method.toUpperCase(),
        path,
        schemes: accepted,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        requiredQuery: parameters.filter((p) => p.in === 'query' && p.required).map((p) => p.name),
        headers: parameters.filter((p) => p.in === 'header').map((p) => p.name),
        hasBody: body !== undefined,
        csrfInBody: Object.hasOwn((bodySchema as { properties?: object })?.properties ?? {}, 'csrfToken'),
        statuses: Object.keys(op.responses).map(Number),
        responseSchema: (status) => op.responses[status]?.content?.['application/json']?.schema,
      });
    }
  }
  return operations;
}

function resolve(document: OpenApiDocument, ref: string): unknown {
  const name = ref.replace('#/components/schemas/', '');
  return document.components.schemas[name];
}

/**
 * Checks an answer's body against the schema the document gives for its status, `$ref`s resolved in the
 * document's components: "the documented error shape" read from the document itself.
 */
export function documentedShape(document: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'openapi.json', components: document.components });
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
  return (op: Operation, status: number, body: unknown): string | undefined => {
    const schema = op.responseSchema(status);
    if (schema === undefined) return `${op.method} ${op.path} documents no JSON body for ${status}`;
    // `#/components/…` references made absolute against the document added as `openapi.json`.
    const text = JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/');
    let validate = compiled.get(text);
    if (!validate) {
      validate = ajv.compile(JSON.parse(text));
      compiled.set(text, validate);
    }
    return validate(body) ? undefined : ajv.errorsText(validate.errors);
  };
}
