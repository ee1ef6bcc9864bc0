/**
 * Compiles the TypeScript service into one JavaScript file, dist/main.js (dependencies stay in
 * node_modules), so a start loads plain JavaScript instead of transpiling ~280 files at run time
 * (tsx: ~3 s of CPU before the first line of the program). `npm ci` builds it (prepare); the
 * launcher (bin/paper-arena.mjs, what `npm start` and `npx paper-arena` run) rebuilds it when a
 * source file changed since. `node bin/build.mjs` builds it by hand.
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const BUNDLE = join(root, 'dist', 'main.js');
const INPUTS = join(root, 'dist', 'inputs.json');
/**
 * Pure-ESM packages of many small files (typebox alone loads ~370 modules, zod ~150, drizzle ~110):
 * compiled into the bundle, the rest stay in node_modules. A package bundled here is bundled with
 * what imports it (the TypeBox type provider with typebox), so no second copy is loaded.
 */
const BUNDLED = ['typebox', '@fastify/type-provider-typebox', 'zod', 'zod-to-json-schema', 'drizzle-orm', '@modelcontextprotocol/sdk'];
const packageOf = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
/** Keeps every package outside the bundle except BUNDLED. */
const externals = {
  name: 'externals',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => (BUNDLED.includes(packageOf(args.path)) ? undefined : { path: args.path, external: true }));
  },
};
/** Besides the bundled sources: what changes how they are compiled. */
const SETTINGS = ['bin/build.mjs', 'tsconfig.json', 'package.json'];

/** True when dist/main.js exists and no file it was built from changed (or went away) since. */
export function isFresh() {
  try {
    const built = statSync(BUNDLE).mtimeMs;
    const inputs = JSON.parse(readFileSync(INPUTS, 'utf8'));
    return [...inputs, ...SETTINGS].every((file) => statSync(join(root, file)).mtimeMs <= built);
  } catch {
    return false;
  }
}

/** Builds dist/main.js (written under a temporary name and renamed: concurrent builds never see half a file). */
export async function build() {
  const { build: esbuild } = await import('esbuild');
  const tmp = `${BUNDLE}.${process.pid}.tmp`;
  mkdirSync(dirname(BUNDLE), { recursive: true });
  const result = await esbuild({
    absWorkingDir: root,
    entryPoints: ['src/main.ts'],
    outfile: tmp,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    plugins: [externals],
    // Bundled CommonJS code (in BUNDLED packages) may call require.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
  });
  const inputs = Object.keys(result.metafile.inputs).filter((f) => !f.includes('node_modules/'));
  writeFileSync(`${INPUTS}.${process.pid}.tmp`, JSON.stringify(inputs));
  // The map's name inside the bundle is the temporary one: point it at the final name.
  writeFileSync(tmp, readFileSync(tmp, 'utf8').replace(/sourceMappingURL=[^\n]*$/, 'sourceMappingURL=main.js.map'));
  renameSync(`${tmp}.map`, `${BUNDLE}.map`);
  renameSync(`${INPUTS}.${process.pid}.tmp`, INPUTS);
  renameSync(tmp, BUNDLE);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await build();
