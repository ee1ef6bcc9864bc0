/**
 * The simulated market's 90-day history for the default setup (the bundled coins, the default
 * seed and profile), made once by the build (bin/build.mjs, run by `npm ci`) in
 * dist/sim-template: the checkpoint files of src/storage/sim-file-store.ts. A first PGlite start
 * copies it and resumes from it, catching up the minutes since the build, instead of simulating
 * 90 days × 300 coins (~4.5 s of CPU). A history back-filled at the build is as valid as one
 * back-filled at the first start (the market cold-starts 90 days before either). A copy is used
 * only when its meta (seed, profile, coin universe) matches the start's and its stamp matches the
 * simulation code; a start still back-fills when the copy is older than the 90-day window.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_SIM_PROFILE, DEFAULT_SIM_SEED } from '../config/env.js';
import { DEFAULT_COINS_PATH, loadCoins } from '../marketdata/coins.js';
import { backfillInto, sameSimMeta, simMeta } from '../services/sim-market-boot.js';
import { copyDirectoryAtomically } from '../util/copy-directory.js';
import { projectPath } from '../util/project-files.js';
import { FileSimStore } from './sim-file-store.js';
import type { SimCheckpointMeta } from './sim-store.js';

export const SIM_TEMPLATE_DIR = projectPath('dist', 'sim-template');
const STAMP_NAME = 'template.json';
/** The files whose code decides what a stored history means and how it resumes. */
const SIM_CODE = [projectPath('src', 'marketdata', 'sim'), projectPath('src', 'storage', 'sim-file-store.ts'), projectPath('src', 'services', 'sim-market-boot.ts')];

interface TemplateStamp extends SimCheckpointMeta {
  code: string;
  builtAtMs: number;
}

/** A build younger than this keeps its template (a first start then catches up at most this much). */
const REBUILD_AFTER_MS = 24 * 3600_000;

/** A hash of the simulation code (empty when the sources are not shipped: the meta check still holds). */
function simCodeHash(): string {
  const hash = createHash('sha256');
  for (const path of SIM_CODE) {
    if (!existsSync(path)) continue;
    const files = path.endsWith('.ts') ? [path] : readdirSync(path).filter((f) => f.endsWith('.ts')).sort().map((f) => join(path, f));
    for (const file of files) hash.update(`${file.slice(projectPath().length)}\n${readFileSync(file, 'utf8')}\n`);
  }
  return hash.digest('hex');
}

function readStamp(templateDir: string): TemplateStamp | null {
  try {
    return JSON.parse(readFileSync(join(templateDir, STAMP_NAME), 'utf8')) as TemplateStamp;
  } catch {
    return null;
  }
}

/** A template with this stamp was made for `meta` by this simulation code. */
function fits(stamp: TemplateStamp | null, meta: SimCheckpointMeta): stamp is TemplateStamp {
  return stamp !== null && sameSimMeta(stamp, meta) && stamp.code === simCodeHash();
}

/**
 * Copies the template into `dir` when `dir` holds no checkpoint yet and the template was made
 * for `meta` by this simulation code. True when copied.
 */
export function copySimTemplate(dir: string, meta: SimCheckpointMeta, templateDir = SIM_TEMPLATE_DIR): boolean {
  if (existsSync(join(dir, 'checkpoint.json'))) return false;
  if (!fits(readStamp(templateDir), meta)) return false;
  copyDirectoryAtomically(templateDir, dir, [STAMP_NAME]);
  return true;
}

/** Builds the template for the default setup at nowMs (the build calls it), unless a recent one is current. */
export async function buildSimTemplate(nowMs: number, templateDir = SIM_TEMPLATE_DIR, coinsFile = DEFAULT_COINS_PATH): Promise<'current' | 'built'> {
  const coins = loadCoins(coinsFile);
  const meta = simMeta(coins, DEFAULT_SIM_SEED, DEFAULT_SIM_PROFILE);
  const stamp = readStamp(templateDir);
  if (fits(stamp, meta) && nowMs - stamp.builtAtMs < REBUILD_AFTER_MS) return 'current';
  const tmp = `${templateDir}.build-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  await backfillInto(new FileSimStore(tmp), meta, coins, DEFAULT_SIM_PROFILE, nowMs);
  writeFileSync(join(tmp, STAMP_NAME), JSON.stringify({ ...meta, code: simCodeHash(), builtAtMs: nowMs } satisfies TemplateStamp));
  rmSync(templateDir, { recursive: true, force: true });
  renameSync(tmp, templateDir);
  return 'built';
}
