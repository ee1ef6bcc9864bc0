/**
 * The market tape (NDJSON, one JSON object a line):
 *   line 1, the header: {"tape":"paper-arena.market-tape.v1","source":"sim","recordedAt":"…","startMs":…,"endMs":…,"coins":300,"everySeconds":10}
 *   then one snapshot a line, oldest first:
 *     {"t":<unix ms>,"q":{"<coinId>":[priceUsd, volume24hUsd, marketCapUsd, change1h, change24h, change7d, bullishVotes, bearishVotes], …},
 *      "fg":{"value":54,"label":"Neutral"}, "fx":{"EUR":0.86, …}}
 * Figures after the price may be null or left off (they are then derived); `fg` and `fx`
 * are optional and hold until a later line changes them. Live mode stores its samples
 * in the same format, so one reader serves both.
 */
import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { FearGreed } from '../../domain/fear-greed.js';
import { toFearGreed, type QuoteInput, type SnapshotInput } from '../live/sample-market.js';

export const TAPE_FORMAT = 'paper-arena.market-tape.v1';
const PROGRESS_FROM_BYTES = 4 * 1024 * 1024;

export interface TapeHeader {
  tape: typeof TAPE_FORMAT;
  source: string;
  recordedAt: string;
  startMs: number | null;
  endMs: number | null;
  coins: number;
  everySeconds?: number;
}

export class TapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TapeError';
  }
}

type Tuple = (number | null)[];

/** Figures keep 8 significant digits (prices 12): the tape stays small and nothing visible is lost. */
const nullable = (x: number | null | undefined, digits = 8): number | null => (x === undefined || x === null || !Number.isFinite(x) ? null : Number(x.toPrecision(digits)));

/** One snapshot as a tape line (no trailing newline). */
export function formatSnapshot(snapshot: SnapshotInput): string {
  const q: Record<string, Tuple> = {};
  for (const [coinId, x] of Object.entries(snapshot.quotes)) {
    const tuple: Tuple = [nullable(x.priceUsd, 12), nullable(x.volume24hUsd), nullable(x.marketCapUsd), nullable(x.change1h), nullable(x.change24h), nullable(x.change7d), nullable(x.bullishVotes), nullable(x.bearishVotes)];
    while (tuple.length > 1 && tuple[tuple.length - 1] === null) tuple.pop();
    q[coinId] = tuple;
  }
  const line: Record<string, unknown> = { t: snapshot.tMs, q };
  if (snapshot.fearGreed) line.fg = snapshot.fearGreed;
  if (snapshot.fiat && Object.keys(snapshot.fiat).length > 0) line.fx = snapshot.fiat;
  return JSON.stringify(line);
}

export function formatHeader(header: Omit<TapeHeader, 'tape'>): string {
  return JSON.stringify({ tape: TAPE_FORMAT, ...header });
}

const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);

/** Parses a snapshot line; throws TapeError naming what is wrong. */
export function parseSnapshot(line: string, where = 'line'): SnapshotInput {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    throw new TapeError(`${where}: not JSON`);
  }
  if (typeof raw !== 'object' || raw === null) throw new TapeError(`${where}: not an object`);
  const o = raw as Record<string, unknown>;
  const t = num(o.t);
  if (t === null || t < 0) throw new TapeError(`${where}: "t" must be a unix ms number`);
  if (typeof o.q !== 'object' || o.q === null) throw new TapeError(`${where}: "q" must be an object of coin tuples`);
  const quotes: Record<string, QuoteInput> = {};
  for (const [coinId, tuple] of Object.entries(o.q as Record<string, unknown>)) {
    if (!Array.isArray(tuple)) throw new TapeError(`${where}: q.${coinId} must be an array`);
    const price = num(tuple[0]);
    if (price === null || price <= 0) throw new TapeError(`${where}: q.${coinId}[0] must be a positive price`);
    quotes[coinId] = {
      priceUsd: price,
      volume24hUsd: num(tuple[1]),
      marketCapUsd: num(tuple[2]),
      change1h: num(tuple[3]),
      change24h: num(tuple[4]),
      change7d: num(tuple[5]),
      bullishVotes: num(tuple[6]),
      bearishVotes: num(tuple[7]),
    };
  }
  let fearGreed: FearGreed | null = null;
  if (o.fg !== undefined && o.fg !== null) {
    const fg = o.fg as Record<string, unknown>;
    fearGreed = toFearGreed(num(fg.value) ?? Number.NaN, typeof fg.label === 'string' ? fg.label : null);
    if (fearGreed === null) throw new TapeError(`${where}: "fg" must be {value 0..100, label}`);
  }
  let fiat: Record<string, number> | null = null;
  if (o.fx !== undefined && o.fx !== null) {
    fiat = {};
    for (const [code, rate] of Object.entries(o.fx as Record<string, unknown>)) {
      const r = num(rate);
      if (r === null || r <= 0) throw new TapeError(`${where}: fx.${code} must be a positive rate`);
      fiat[code.toUpperCase()] = r;
    }
  }
  return { tMs: t, quotes, fearGreed, fiat };
}

export interface ReadTapeOptions {
  /** Called about every 5 % of a file of 4 MB or more (bytes read, total bytes). */
  onProgress?: (readBytes: number, totalBytes: number, snapshots: number) => void;
  /** A missing file reads as an empty tape instead of an error (live mode's first start). */
  allowMissing?: boolean;
}

export interface Tape {
  header: TapeHeader | null;
  snapshots: SnapshotInput[];
}

/**
 * Streams a tape file line by line (it may be large), calling `each` for every snapshot in
 * file order; returns the header (null when the file has none).
 */
export async function forEachSnapshot(path: string, each: (snapshot: SnapshotInput) => void, options: ReadTapeOptions = {}): Promise<{ header: TapeHeader | null; snapshots: number }> {
  let total: number;
  try {
    total = statSync(path).size;
  } catch (error) {
    if (options.allowMissing && (error as NodeJS.ErrnoException).code === 'ENOENT') return { header: null, snapshots: 0 };
    throw new TapeError(`cannot read tape ${path}: ${(error as Error).message}`);
  }
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Number.POSITIVE_INFINITY });
  let header: TapeHeader | null = null;
  let count = 0;
  let lineNo = 0;
  let bytes = 0;
  let nextReport = total / 20;
  for await (const line of lines) {
    lineNo += 1;
    bytes += Buffer.byteLength(line) + 1;
    if (line.trim() === '') continue;
    if (lineNo === 1 && line.includes('"tape"')) {
      const parsed = JSON.parse(line) as TapeHeader;
      if (parsed.tape !== TAPE_FORMAT) throw new TapeError(`${path}: unknown tape format ${String(parsed.tape)} (expected ${TAPE_FORMAT})`);
      header = parsed;
      continue;
    }
    each(parseSnapshot(line, `${path}:${lineNo}`));
    count += 1;
    if (options.onProgress && total >= PROGRESS_FROM_BYTES && bytes >= nextReport) {
      options.onProgress(bytes, total, count);
      nextReport += total / 20;
    }
  }
  return { header, snapshots: count };
}

/** The whole tape in memory, snapshots in time order. */
export async function readTape(path: string, options: ReadTapeOptions = {}): Promise<Tape> {
  const snapshots: SnapshotInput[] = [];
  let ordered = true;
  const { header } = await forEachSnapshot(
    path,
    (snapshot) => {
      if (snapshots.length > 0 && snapshot.tMs < snapshots[snapshots.length - 1]!.tMs) ordered = false;
      snapshots.push(snapshot);
    },
    options,
  );
  if (!ordered) snapshots.sort((a, b) => a.tMs - b.tMs);
  return { header, snapshots };
}
