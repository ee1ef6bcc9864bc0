#!/usr/bin/env node
// The program `npm start` and `npx paper-arena` run: the compiled bundle (bin/build.mjs; rebuilt
// first when a source file changed), or, when it cannot be built, the TypeScript sources via tsx.
import { BUNDLE, build, isFresh } from './build.mjs';

let entry = BUNDLE;
if (!isFresh()) {
  try {
    await build();
  } catch (error) {
    process.stderr.write(`paper-arena: could not compile (${error instanceof Error ? error.message : error}); running the TypeScript sources with tsx\n`);
    const { register } = await import('tsx/esm/api');
    register();
    entry = new URL('../src/main.ts', import.meta.url).href;
  }
}
if (entry === BUNDLE) process.setSourceMapsEnabled(true);
await import(entry === BUNDLE ? new URL('../dist/main.js', import.meta.url).href : entry);
