/**
 * Counter-based randomness: every draw is a hash of (seed, stream, index), never the
 * next value of a running generator. The draw for minute m is therefore the same
 * whether the process ran since the epoch or resumed from a stored state at m.
 */
import { normalQuantile, studentT4Quantile } from './quantiles.js';

export type SimSeed = string | number;

/** murmur3's 32-bit finalizer: a bijection with full avalanche. */
export function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** Folds b into a; for a fixed a it is a bijection in b, so distinct counters never collide. */
export function combine32(a: number, b: number): number {
  return mix32(((a ^ Math.imul(b, 0x9e3779b1)) + 0x7f4a7c15) | 0);
}

/** FNV-1a over UTF-16 code units, then avalanche: stream and seed names become 32-bit keys. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return mix32(h);
}

/** 42 and "42" give the same key, so SIM_SEED from the environment matches numeric seeds in tests. */
export function seedKey(seed: SimSeed): number {
  return hashString(`seed:${String(seed)}`);
}

/** A stream key: one independent sequence per (seed, purpose), e.g. ("42", "coin:1"). */
export function streamKey(seed: SimSeed, stream: string | number): number {
  return combine32(seedKey(seed), hashString(String(stream)));
}

/** Same as streamKey but from an already-hashed seed (hot paths build keys once). */
export function streamKeyFrom(seedKeyValue: number, stream: string | number): number {
  return combine32(seedKeyValue, hashString(String(stream)));
}

const TWO_POW_32 = 4294967296;

/**
 * The 32-bit hash of draw `index` (a non-negative integer below 2^53) in a stream.
 * Indices below 2^32 (every minute until the year 10 000) take one mixing round.
 */
export function drawHash(stream: number, index: number): number {
  if (index < TWO_POW_32) return combine32(stream, index);
  const hi = Math.floor(index / TWO_POW_32);
  return combine32(combine32(stream, index - hi * TWO_POW_32), hi);
}

const SUB_KEYS = Uint32Array.from([0x68e31da4, 0xb5297a4d, 0x1b56c4e9, 0x5bd1e995, 0x27d4eb2f, 0x165667b1, 0xd3a2646c, 0xfd7046c5]);

/** Value k (0..7) of several independent 32-bit values derived from one draw (one coin-minute). */
export function subHash(hash: number, k: number): number {
  return mix32(hash ^ SUB_KEYS[k & 7]!);
}

/** Maps a 32-bit hash to the open interval (0, 1): safe for log and quantiles. */
export function hashToUnit(hash: number): number {
  return (hash + 0.5) / TWO_POW_32;
}

// Quantile tables make a normal or fat-tailed draw cost one lookup and a linear
// interpolation; the outermost cells fall back to the exact quantile.
const TABLE_BITS = 12; // 4,096 cells: small enough to stay in cache in the hot loop
const TABLE_SIZE = 1 << TABLE_BITS;
const FRACTION_BITS = 32 - TABLE_BITS;
const FRACTION_SCALE = 1 / 2 ** FRACTION_BITS;
const FRACTION_MASK = 2 ** FRACTION_BITS - 1;
/** Cells at each end computed exactly: the tails curve too much for a straight line. */
const EXACT_CELLS = 8;

function buildTable(quantile: (p: number) => number): Float64Array {
  const table = new Float64Array(TABLE_SIZE + 1);
  for (let i = 1; i < TABLE_SIZE; i += 1) table[i] = quantile(i / TABLE_SIZE);
  return table;
}

const NORMAL_TABLE = buildTable(normalQuantile);
const UNIT_T4_SCALE = Math.SQRT1_2; // Student-t(4) has variance 2
const UNIT_T4_TABLE = buildTable((p) => studentT4Quantile(p) * UNIT_T4_SCALE);

function tableQuantile(table: Float64Array, exact: (p: number) => number, hash: number): number {
  const cell = hash >>> FRACTION_BITS;
  if (cell < EXACT_CELLS || cell >= TABLE_SIZE - EXACT_CELLS) return exact(hashToUnit(hash));
  const left = table[cell]!;
  return left + (table[cell + 1]! - left) * (((hash & FRACTION_MASK) + 0.5) * FRACTION_SCALE);
}

function exactUnitT4(p: number): number {
  return studentT4Quantile(p) * UNIT_T4_SCALE;
}

/** Standard normal from a 32-bit hash. */
export function hashToNormal(hash: number): number {
  return tableQuantile(NORMAL_TABLE, normalQuantile, hash);
}

/** Student-t with 4 degrees of freedom scaled to unit variance: fat tails, finite variance. */
export function hashToFatTailed(hash: number): number {
  return tableQuantile(UNIT_T4_TABLE, exactUnitT4, hash);
}

/** Uniform in (0, 1) for (seed, stream, index). */
export function uniform(seed: SimSeed, stream: string | number, index: number): number {
  return hashToUnit(drawHash(streamKey(seed, stream), index));
}

/** Standard normal for (seed, stream, index). */
export function normal(seed: SimSeed, stream: string | number, index: number): number {
  return hashToNormal(drawHash(streamKey(seed, stream), index));
}

/** Unit-variance Student-t(4) for (seed, stream, index). */
export function fatTailed(seed: SimSeed, stream: string | number, index: number): number {
  return hashToFatTailed(drawHash(streamKey(seed, stream), index));
}
