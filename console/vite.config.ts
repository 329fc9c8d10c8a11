import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import draft07MetaSchema from 'ajv/dist/refs/json-schema-draft-07.json' with { type: 'json' };
import standalone from 'ajv/dist/standalone/index.js';
import { defineConfig, type Plugin } from 'vite';

const here = dirname(fileURLToPath(import.meta.url));
const META_SCHEMAS = 'virtual:json-meta-schemas';

/**
 * The playground runs the service's own cadre.toml validator in the browser. One piece of it, checking a
 * tool's `inputJsonSchema` against its meta-schema, compiles validators with `new Function` on the server;
 * the console's Content-Security-Policy forbids that, so the same Ajv meta-schemas are compiled here, at
 * build time, into plain code, and the validator module is swapped for one that uses them.
 */
function precompiledMetaSchemas(): Plugin {
  const browserValidator = join(here, 'src/playground/meta-schema-validator.ts');
  return {
    name: 'cadre-precompiled-meta-schemas',
    enforce: 'pre',
    resolveId(source, importer) {
      if (source === META_SCHEMAS) return `\0${META_SCHEMAS}`;
      if (source === './meta-schema-validator.js' && importer?.includes('/src/shared/expert/')) {
        return browserValidator;
      }
      return undefined;
    },
    load(id) {
      if (id !== `\0${META_SCHEMAS}`) return undefined;
      const ajv = new Ajv2020({
        strict: false,
        validateFormats: false,
        allErrors: true,
        code: { source: true, esm: true },
      });
      ajv.addMetaSchema(draft07MetaSchema);
      const code = standalone.default(ajv, {
        draft2020: 'https://json-schema.org/draft/2020-12/schema',
        draft07: 'http://json-schema.org/draft-07/schema',
      });
      // Ajv's standalone output still `require`s its runtime helpers: turn each into an import.
      const imports: string[] = [];
      const body = code.replace(/require\("([^"]+)"\)\.default/g, (_all: string, path: string) => {
        const name = `__runtime${imports.length}`;
        imports.push(`import ${name} from ${JSON.stringify(`${path}.js`)};`);
        return name;
      });
      return `${imports.join('\n')}\n${body}`;
    },
  };
}

export default defineConfig({
  root: here,
  base: '/',
  publicDir: join(here, 'public'),
  plugins: [precompiledMetaSchemas()],
  // Vite's own esbuild turns TSX into React's automatic runtime calls; no React plugin is needed for a
  // production build (there is no hot reload to serve).
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: join(here, '../dist/console'),
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    // No inline script anywhere (the Content-Security-Policy has no 'unsafe-inline').
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 1024,
    rollupOptions: {
      onwarn(warning, warn) {
        // zod's sources carry comments Rollup cannot place, and React libraries mark files "use client"
        // for server rendering, which a browser-only bundle does not do: both are dropped, harmlessly.
        if (warning.code === 'INVALID_ANNOTATION' || warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
});
