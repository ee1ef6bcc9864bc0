/**
 * The simulated market's checkpoint as files (single-process PGlite setups):
 * `bars.bin` (a base of bar rows), `bars.journal` (rows appended by each checkpoint) and
 * `checkpoint.json` (meta, state and how many journal bytes belong to it), written last
 * and atomically. Bytes past that length are a torn write and are ignored; rows replayed
 * twice are harmless because a row is a whole snapshot of its bar.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { CANDLE_RANGE_NAMES, type CandleRange } from '../domain/candles.js';
import type { PackedBarRow } from '../marketdata/sim/bar-book.js';
import type { MarketState } from '../marketdata/sim/state.js';
import type { SimCheckpoint, SimCheckpointMeta, SimStore } from './sim-store.js';

/** Compact the journal into the base once it grows past this. */
const JOURNAL_COMPACT_BYTES = 16 * 1024 * 1024;
const HEADER_BYTES = 16; // range index (f64 for alignment) + open time (f64)

interface CheckpointFile extends SimCheckpointMeta {
  state: MarketState;
  coinCount: number;
  journalBytes: number;
}

function encodeRows(rows: readonly PackedBarRow[]): Buffer {
  const parts: Buffer[] = [];
  for (const row of rows) {
    const header = new Float64Array([CANDLE_RANGE_NAMES.indexOf(row.range), row.openTime]);
    parts.push(Buffer.from(header.buffer), Buffer.from(row.data.buffer, row.data.byteOffset, row.data.byteLength));
  }
  return Buffer.concat(parts);
}

function decodeRows(bytes: Buffer, coinCount: number, limit: number): PackedBarRow[] {
  const rowBytes = HEADER_BYTES + coinCount * 6 * 8;
  const rows: PackedBarRow[] = [];
  const end = Math.min(limit, bytes.length);
  for (let at = 0; at + rowBytes <= end; at += rowBytes) {
    const copy = new Uint8Array(rowBytes);
    copy.set(bytes.subarray(at, at + rowBytes));
    const header = new Float64Array(copy.buffer, 0, 2);
    const range = CANDLE_RANGE_NAMES[header[0]!];
    if (range === undefined) throw new RangeError('corrupt bar file');
    rows.push({ range, openTime: header[1]!, data: new Uint8Array(copy.buffer, HEADER_BYTES) });
  }
  return rows;
}

function writeAtomically(path: string, data: Buffer | string): void {
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w');
  writeSync(fd, typeof data === "string" ? Buffer.from(data) : data);
  fsyncSync(fd);
  closeSync(fd);
  renameSync(tmp, path);
}

export class FileSimStore implements SimStore {
  private readonly checkpointPath: string;
  private readonly basePath: string;
  private readonly journalPath: string;
  private journalBytes = 0;

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true });
    this.checkpointPath = join(dir, 'checkpoint.json');
    this.basePath = join(dir, 'bars.bin');
    this.journalPath = join(dir, 'bars.journal');
  }

  async load(): Promise<SimCheckpoint | null> {
    if (!existsSync(this.checkpointPath)) return null;
    const meta = JSON.parse(readFileSync(this.checkpointPath, 'utf8')) as CheckpointFile;
    this.journalBytes = meta.journalBytes;
    return { seed: meta.seed, profile: meta.profile, universeHash: meta.universeHash, state: meta.state, rows: this.storedRows(meta.coinCount) };
  }

  /** Base rows, then the journal's (a later row of the same bar wins when replayed in order). */
  private storedRows(coinCount: number): PackedBarRow[] {
    const base = existsSync(this.basePath) ? decodeRows(readFileSync(this.basePath), coinCount, Number.POSITIVE_INFINITY) : [];
    const journal = existsSync(this.journalPath) ? decodeRows(readFileSync(this.journalPath), coinCount, this.journalBytes) : [];
    return [...base, ...journal];
  }

  async save(
    meta: SimCheckpointMeta,
    state: MarketState,
    rows: readonly PackedBarRow[],
    windowStarts: Record<CandleRange, number>,
    options: { replaceAll?: boolean } = {},
  ): Promise<void> {
    const coinCount = state.coins.length;
    if (options.replaceAll || this.journalBytes > JOURNAL_COMPACT_BYTES) {
      // Rewrite the base with every row still inside its window (read back from the files, not
      // kept in memory), then start an empty journal.
      const byKey = new Map<string, PackedBarRow>();
      for (const r of [...(options.replaceAll ? [] : this.storedRows(coinCount)), ...rows]) byKey.set(`${r.range}@${r.openTime}`, r);
      const kept = [...byKey.values()].filter((r) => r.openTime >= windowStarts[r.range]);
      writeAtomically(this.basePath, encodeRows(kept));
      this.journalBytes = 0;
      writeAtomically(this.checkpointPath, JSON.stringify({ ...meta, state, coinCount, journalBytes: 0 } satisfies CheckpointFile));
      if (existsSync(this.journalPath)) truncateSync(this.journalPath, 0);
      return;
    }
    if (rows.length > 0) {
      if (!existsSync(this.journalPath)) writeFileSync(this.journalPath, '');
      truncateSync(this.journalPath, this.journalBytes); // drop a torn tail from an earlier crash
      const encoded = encodeRows(rows);
      const fd = openSync(this.journalPath, 'a');
      writeSync(fd, encoded);
      fsyncSync(fd);
      closeSync(fd);
      this.journalBytes += encoded.length;
    }
    writeAtomically(this.checkpointPath, JSON.stringify({ ...meta, state, coinCount, journalBytes: this.journalBytes } satisfies CheckpointFile));
  }
}
