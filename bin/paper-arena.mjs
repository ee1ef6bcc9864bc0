#!/usr/bin/env node
// Runs the TypeScript entry point directly (tsx), the same program `npm start` runs.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
