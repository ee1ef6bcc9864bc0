/**
 * Compiles the TypeScript service into one JavaScript file, dist/main.js (most dependencies stay
 * in node_modules; dist/pglite-worker.js beside it is the embedded database's thread), so a start loads plain JavaScript instead of transpiling ~280 files at run
 * time (tsx: ~3 s of CPU before the first line of the program). The launcher
 * (bin/paper-arena.mjs, what `npm start` and `npx paper-arena` run) rebuilds it when a source
 * file changed since. `node bin/build.mjs` (`npm run build`; `npm ci` runs it as `prepare`) also
 * makes dist/pglite-template, the ready database a first PGlite start copies
 * (src/storage/pglite-template.ts), and dist/sim-template, the simulated market's 90-day history
 * it resumes from (src/storage/sim-template.ts). It never fails an install: a start without them compiles
 * or creates what it needs.
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
  mkdirSync(dirname(BUNDLE), { recursive: true });
  const result = await esbuild({
    absWorkingDir: root,
    entryPoints: { [`main.js.${process.pid}`]: 'src/main.ts', [`pglite-template.js.${process.pid}`]: 'src/storage/pglite-template.ts', [`sim-template.js.${process.pid}`]: 'src/storage/sim-template.ts', [`pglite-worker.js.${process.pid}`]: 'src/storage/pglite-worker.ts' },
    outdir: dirname(BUNDLE),
    outExtension: { '.js': '.tmp' },
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
  for (const name of ['pglite-template.js', 'sim-template.js', 'pglite-worker.js', 'main.js']) {
    const file = join(dirname(BUNDLE), name);
    // The map's name inside the bundle is the temporary one: point it at the final name.
    writeFileSync(`${file}.${process.pid}.tmp`, readFileSync(`${file}.${process.pid}.tmp`, 'utf8').replace(/sourceMappingURL=[^\n]*$/, `sourceMappingURL=${name}.map`));
    renameSync(`${file}.${process.pid}.tmp.map`, `${file}.map`);
    if (name === 'main.js') renameSync(`${INPUTS}.${process.pid}.tmp`, INPUTS);
    renameSync(`${file}.${process.pid}.tmp`, file);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    await build();
    const { buildPgliteTemplate } = await import(new URL('../dist/pglite-template.js', import.meta.url).href);
    if ((await buildPgliteTemplate()) === 'built') process.stdout.write('paper-arena: built dist/ (the program and the ready PGlite database)\n');
    const { buildSimTemplate } = await import(new URL('../dist/sim-template.js', import.meta.url).href);
    if ((await buildSimTemplate(Date.now())) === 'built') process.stdout.write('paper-arena: built dist/sim-template (90 days of simulated history for a first start)\n');
  } catch (error) {
    process.stderr.write(`paper-arena: build skipped (${error instanceof Error ? error.message : error}); a start compiles or creates what it needs\n`);
  }
}
