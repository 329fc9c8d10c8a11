// The boundaries `npm test` enforces (`npm run boundaries`, docs/architecture.md "Boundaries"). Each rule's
// comment is the message a violation prints: which rule, and why it exists.
import { MODULE_MAP } from './scripts/module-map.mjs';

// The layers of src/, bottom-up; a layer imports only itself and the layers below it.
// `shared` is the code the server, the CLI and the console all run (the cadre.toml validator and the Expert
// definition's rules); `domain` is the modules.
export const LAYERS = [
  ['shared', '^src/shared/'],
  ['lib', '^src/lib/'],
  ['db', '^src/db/'],
  ['http', '^src/http/'],
  ['domain', '^src/modules/'],
  ['app', '^src/(app|bootstrap|bootstrap-demo|schema)\\.ts$|^src/(config|composition)/'],
  ['main', '^src/(main|api-schema\\.d)\\.ts$|^src/cli/'],
];

const upward = LAYERS.slice(0, -1).map(([name, path], index) => ({
  name: `layer-${name}-imports-upward`,
  severity: 'error',
  comment:
    `src/ is layered main → app → domain (modules) → http → db → lib → shared: ${name} may import only itself and the ` +
    'layers below, so a lower layer never depends on what is built on it (docs/architecture.md, "Layers").',
  from: { path, pathNot: '\\.test\\.ts$' },
  to: { path: LAYERS.slice(index + 1).map(([, above]) => above) },
}));

const modulePath = (name) => `^src/modules/${name}/`;

const unlisted = Object.entries(MODULE_MAP).map(([name, allowed]) => ({
  name: `module-map-${name}`,
  severity: 'error',
  comment:
    `${name} imports a module the module map does not let it use (scripts/module-map.mjs lists, for each ` +
    'module, the modules it may use and why; the map is a directed acyclic graph, so adding an edge is a ' +
    'design decision made there, not a side effect of an import).',
  from: { path: modulePath(name), pathNot: '\\.test\\.ts$' },
  to: { path: '^src/modules/', pathNot: [name, ...Object.keys(allowed)].map(modulePath) },
}));

export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No import cycle, type-only imports included: a cycle makes the load order decide what is defined ' +
        'and ties the files in it into one piece that cannot be understood, tested or moved alone.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'module-through-its-index',
      severity: 'error',
      comment:
        "A module uses another only through the other's public entry (src/modules/<name>/index.ts): its " +
        'tables, repositories and helpers stay private, so it can change them without breaking its users.',
      from: { path: '^src/modules/([^/]+)/', pathNot: '\\.test\\.ts$' },
      to: { path: '^src/modules/[^/]+/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] },
    },
    {
      name: 'composition-through-index',
      severity: 'error',
      comment:
        "The composition (src/app.ts, src/composition/, src/config/, src/main.ts, src/bootstrap*.ts) assembles " +
        "modules through their public entries (src/modules/<name>/index.ts), as modules use each other. " +
        'src/schema.ts, the list of every table for the migrations tool, is the one file that names tables.',
      from: {
        path: '^src/((app|main|bootstrap[^/]*)\\.ts$|(composition|config)/)',
        pathNot: '\\.test\\.ts$',
      },
      to: { path: '^src/modules/[^/]+/', pathNot: '^src/modules/[^/]+/index\\.ts$' },
    },
    ...upward,
    ...unlisted,
    {
      name: 'console-imports-server-code',
      severity: 'error',
      comment:
        'The console is a client of the API: it uses the server only through the generated API types ' +
        '(src/api-schema.d.ts), so the server can change anything the API does not promise. A list the console ' +
        'needs from the server is generated into console/src/generated/ by `npm run console:api-types` ' +
        '(console/scripts/console-lists.ts), which a test keeps current. Code both sides run lives in src/shared/.',
      from: { path: '^console/' },
      to: { path: '^src/', pathNot: '^src/(api-schema\\.d\\.ts$|shared/)' },
    },
    {
      name: 'shared-is-self-contained',
      severity: 'error',
      comment:
        'src/shared/ is the code the server, the CLI and the console all run (the cadre.toml validator, the ' +
        "Expert definition's rules): it imports only itself and npm packages, never the rest of src/, so the " +
        'console running it does not run server code (docs/architecture.md, "Layers").',
      from: { path: '^src/shared/' },
      to: { path: '^src/', pathNot: '^src/shared/' },
    },
    {
      name: 'shared-runs-in-browsers',
      severity: 'error',
      comment:
        'src/shared/ runs in the console too: no Node.js built-in module (node:fs, node:crypto, …); what needs ' +
        'one belongs to the server or the CLI (docs/architecture.md, "Layers").',
      from: { path: '^src/shared/', pathNot: '\\.test\\.ts$' },
      to: { dependencyTypes: ['core'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
