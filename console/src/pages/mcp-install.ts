import type { components } from '../api/schema.js';

type ServerJson = components['schemas']['McpServerJson'];
type Package = NonNullable<ServerJson['packages']>[number];
type Argument = NonNullable<Package['runtimeArguments']>[number];

/** What a server.json field a person fills in may say (an argument, a variable, a header, a URL variable). */
interface Fillable {
  description?: string;
  value?: string;
  isSecret?: boolean;
  default?: string;
  choices?: string[];
  variables?: Record<string, Fillable>;
}

/** One `inputs[]` entry of VS Code's mcp.json: what VS Code asks for the first time the server starts. */
export interface McpJsonInput {
  id: string;
  type: 'promptString' | 'pickString';
  description: string;
  password: boolean;
  default?: string;
  options?: string[];
}

/** A `servers` entry of VS Code's mcp.json: a process it starts, or a remote endpoint it connects to. */
export type McpJsonServer =
  | { type: 'stdio'; command: string; args?: string[]; env?: Record<string, string> }
  | { type: 'http'; url: string; headers?: Record<string, string> };

/** VS Code's mcp.json holding one server, as VS Code writes it when installing that server from a gallery. */
export interface McpJson {
  servers: Record<string, McpJsonServer>;
  inputs?: McpJsonInput[];
}

/** The command VS Code runs each kind of package with (an MCP bundle, mcpb, it downloads and unpacks itself). */
const RUNNERS: Record<Exclude<Package['registryType'], 'mcpb'>, string> = {
  npm: 'npx',
  pypi: 'uvx',
  oci: 'docker',
  nuget: 'dnx',
};

/**
 * The mcp.json VS Code writes when it installs a catalog server version (docs/mcp-registry.md "The install
 * snippet"): from its first package, else its first remote, as VS Code's gallery does. Values a person must
 * give become `${input:…}` references with an `inputs` entry that prompts for them. One rule is stricter
 * than VS Code's: a secret (`isSecret`) is always prompted for as a password, never written with a value or
 * default the server.json may carry, so no secret is ever part of the snippet. Undefined when there is
 * nothing to write: an MCP bundle (VS Code unpacks it itself) or a version with no package and no remote.
 */
export function mcpJsonFor(server: ServerJson): McpJson | undefined {
  const inputs = new Inputs();
  const pkg = server.packages?.[0];
  const remote = server.remotes?.[0];
  let entry: McpJsonServer;
  if (pkg) {
    if (pkg.registryType === 'mcpb') return undefined;
    entry = stdioEntry(pkg, pkg.registryType, inputs);
  } else if (remote) {
    const headers = keyValues(remote.headers ?? [], inputs);
    entry = {
      type: 'http',
      url: inputs.fill(remote.url, remote.variables),
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
    };
  } else {
    return undefined;
  }
  return { servers: { [server.name]: entry }, ...(inputs.list.length > 0 ? { inputs: inputs.list } : {}) };
}

function stdioEntry(pkg: Package, type: keyof typeof RUNNERS, inputs: Inputs): McpJsonServer {
  const args: string[] = type === 'oci' ? ['run', '-i', '--rm'] : [];
  args.push(...argumentsOf(pkg.runtimeArguments ?? [], inputs));
  const env = keyValues(pkg.environmentVariables ?? [], inputs);
  // docker passes only the variables it is told to into the container.
  if (type === 'oci') for (const name of Object.keys(env)) args.push('-e', name);
  const packageArguments = pkg.packageArguments ?? [];
  const at = { npm: '@', pypi: '==', oci: ':', nuget: '@' }[type];
  args.push(`${pkg.identifier}${at}${pkg.version}`);
  // dnx asks before it runs a package: installing is the confirmation. `--` ends dnx's own options.
  if (type === 'nuget') args.push('--yes', ...(packageArguments.length > 0 ? ['--'] : []));
  args.push(...argumentsOf(packageArguments, inputs));
  return {
    type: 'stdio',
    command: RUNNERS[type],
    args,
    ...(Object.keys(env).length > 0 ? { env } : {}),
  };
}

/** Environment variables or headers: a fixed value as it is, else what the person is asked for. */
function keyValues(fields: Array<Fillable & { name: string }>, inputs: Inputs): Record<string, string> {
  const values: Record<string, string> = {};
  for (const field of fields) {
    values[field.name] = inputs.valueOf(field.name, field);
  }
  return values;
}

function argumentsOf(list: Argument[], inputs: Inputs): string[] {
  const args: string[] = [];
  for (const argument of list) {
    if (argument.type === 'named') {
      args.push(argument.name);
      // A flag (`--verbose`) has no value and asks for none.
      if (argument.value || argument.description || argument.default !== undefined || argument.isSecret)
        args.push(inputs.valueOf(argument.name.replace(/^--?/, ''), argument));
    } else if (
      argument.value ||
      argument.isSecret ||
      argument.description ||
      argument.default !== undefined
    ) {
      args.push(inputs.valueOf(argument.valueHint ?? 'value', argument));
    } else {
      args.push(argument.valueHint ?? '');
    }
  }
  return args;
}

/** A variable's place in a server.json value: `{token}`. */
const PLACEHOLDER = /\{([A-Za-z0-9_.-]+)\}/g;

/** The inputs a snippet asks for, each once (the first field that names an id describes it). */
class Inputs {
  readonly list: McpJsonInput[] = [];

  /**
   * `{name}` in a value, for each of its variables, becomes that variable's input; the variables of a secret
   * field (a header `Bearer {token}`) are secrets too.
   */
  fill(value: string, variables: Record<string, Fillable> | undefined, secret = false): string {
    let filled = value;
    for (const [id, variable] of Object.entries(variables ?? {})) {
      this.add(id, secret ? { ...variable, isSecret: true } : variable);
      filled = filled.replaceAll(`{${id}}`, `\${input:${id}}`);
    }
    return filled;
  }

  /**
   * A field's value: its template filled, its fixed value, or (a secret, or nothing given) an input. A
   * `{name}` in a value whose variables are not declared (`Bearer {token}`) is asked for all the same: VS Code
   * would write it as it stands, which no server accepts.
   */
  valueOf(id: string, field: Fillable): string {
    const variables =
      field.variables && Object.keys(field.variables).length > 0
        ? field.variables
        : Object.fromEntries([...(field.value ?? '').matchAll(PLACEHOLDER)].map((match) => [match[1], {}]));
    if (Object.keys(variables).length > 0) return this.fill(field.value ?? '', variables, field.isSecret);
    if (field.value && !field.isSecret) return field.value;
    if (!field.isSecret && !field.description && !field.choices && field.default === undefined) return '';
    this.add(id, field);
    return `\${input:${id}}`;
  }

  private add(id: string, field: Fillable) {
    if (this.list.some((input) => input.id === id)) return;
    const secret = field.isSecret === true;
    this.list.push({
      id,
      type: field.choices ? 'pickString' : 'promptString',
      description: field.description ?? '',
      password: secret,
      ...(field.default !== undefined && !secret ? { default: field.default } : {}),
      ...(field.choices ? { options: field.choices } : {}),
    });
  }
}
