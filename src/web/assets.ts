/**
 * Static files of the pages, served by the service itself (no CDN, no build step): our CSS and
 * small scripts from src/web/assets/, and uPlot from node_modules. URLs carry a content hash, so
 * they are cached for a year and a changed file gets a new URL.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { projectPath } from '../util/project-files.js';

const here = projectPath('src', 'web');
const uplotDist = join(dirname(createRequire(import.meta.url).resolve('uplot')), '..', 'dist');

const FILES = {
  'app.css': join(here, 'assets', 'app.css'),
  'uplot.css': join(uplotDist, 'uPlot.min.css'),
  'uplot.js': join(uplotDist, 'uPlot.iife.min.js'),
  'charts.js': join(here, 'assets', 'charts.js'),
  'verify.js': join(here, 'assets', 'verify.js'),
  'console.js': join(here, 'assets', 'console.js'),
  'live.js': join(here, 'assets', 'live.js'),
} as const;
export type AssetName = keyof typeof FILES;

interface Asset {
  body: Buffer;
  type: string;
  hash: string;
}

let loaded: Map<AssetName, Asset> | null = null;
function assets(): Map<AssetName, Asset> {
  if (!loaded) {
    loaded = new Map();
    for (const [name, path] of Object.entries(FILES) as [AssetName, string][]) {
      const body = readFileSync(path);
      const type = name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8';
      loaded.set(name, { body, type, hash: createHash('sha256').update(body).digest('hex').slice(0, 12) });
    }
  }
  return loaded;
}

export const ASSET_PREFIX = '/static/';

/** The versioned URL of an asset. */
export function assetUrl(name: AssetName): string {
  return `${ASSET_PREFIX}${name}?v=${assets().get(name)!.hash}`;
}

/** Bytes of an asset (for the JS-per-page figure). */
export function assetBytes(name: AssetName): Buffer {
  return assets().get(name)!.body;
}

export function registerAssets(app: FastifyInstance): void {
  app.get<{ Params: { name: string }; Querystring: { v?: string } }>(`${ASSET_PREFIX}:name`, { schema: { hide: true } }, async (request, reply) => {
    const asset = assets().get(request.params.name as AssetName);
    // The error envelope every other error body has.
    if (!asset) return reply.status(404).send({ error: 'not_found', message: `no asset ${request.params.name.slice(0, 100)}` });
    // Only the URL naming this content may be kept for a year: another (or no) version would pin old bytes.
    const cache = request.query.v === asset.hash ? 'public, max-age=31536000, immutable' : 'public, max-age=300';
    return reply.header('cache-control', cache).type(asset.type).send(asset.body);
  });
}
