/**
 * Every coin's bars of every candle range, kept in memory and grown by merging the
 * series of each simulation run. Stored as one row per (range, bar open time) holding
 * all coins' bars packed, so a minute's checkpoint writes a handful of rows.
 *
 * In memory the bars are columns, not objects: per range one ring of `count` slots per coin
 * in typed arrays (open time, then o, h, l, c, volumeSum, samples). 300 coins × 2,280 bars
 * are ~40 MB of numbers instead of 684,000 objects; reads materialize the bars they return.
 */
import { CANDLE_RANGES, CANDLE_RANGE_NAMES, mergeBars, type BarAccumulator, type CandleRange } from '../../domain/candles.js';
import { seriesBars, type SimCandleSeries } from './candle-series.js';

/** o, h, l, c, volumeSum, samples per coin. */
const FIELDS = 6;

/** One stored row: all coins' bar opening at `openTime` (unix s) in one range. */
export interface PackedBarRow {
  range: CandleRange;
  openTime: number;
  data: Uint8Array;
}

/** One range's rings: coin i's bars live in slots [i * count, (i + 1) * count). */
class RangeRings {
  readonly times: Float64Array;
  readonly values: Float64Array;
  /** Ring position of each coin's oldest bar, and how many bars it holds. */
  readonly start: Int32Array;
  readonly length: Int32Array;

  constructor(
    readonly coinCount: number,
    readonly count: number,
  ) {
    this.times = new Float64Array(coinCount * count);
    this.values = new Float64Array(coinCount * count * FIELDS);
    this.start = new Int32Array(coinCount);
    this.length = new Int32Array(coinCount);
  }

  /** Array index of coin i's k-th bar (0 = oldest). */
  slot(i: number, k: number): number {
    return i * this.count + ((this.start[i]! + k) % this.count);
  }

  read(s: number): BarAccumulator {
    const v = this.values;
    const at = s * FIELDS;
    return { t: this.times[s]!, o: v[at]!, h: v[at + 1]!, l: v[at + 2]!, c: v[at + 3]!, volumeSum: v[at + 4]!, samples: v[at + 5]! };
  }

  write(s: number, bar: BarAccumulator): void {
    this.times[s] = bar.t;
    // Field by field: no array per bar (a restart writes 684,000 of them).
    const v = this.values;
    const at = s * FIELDS;
    v[at] = bar.o;
    v[at + 1] = bar.h;
    v[at + 2] = bar.l;
    v[at + 3] = bar.c;
    v[at + 4] = bar.volumeSum;
    v[at + 5] = bar.samples;
  }

  /** Continues (merge) or, for a stored snapshot of the same bar, replaces the newest bar; appends newer ones. */
  add(i: number, bar: BarAccumulator, sameBar: 'merge' | 'replace'): void {
    const n = this.length[i]!;
    if (n > 0) {
      const last = this.slot(i, n - 1);
      const lastT = this.times[last]!;
      if (lastT === bar.t) {
        this.write(last, sameBar === 'merge' ? mergeBars(this.read(last), bar) : bar);
        return;
      }
      if (bar.t < lastT) return; // older than what is held: already folded
    }
    if (n < this.count) {
      this.length[i] = n + 1;
      this.write(this.slot(i, n), bar);
    } else {
      this.start[i] = (this.start[i]! + 1) % this.count; // drop the oldest
      this.write(this.slot(i, n - 1), bar);
    }
  }

  /** Slot of coin i's bar opening at openTime, searching from the newest; -1 when none. */
  find(i: number, openTime: number): number {
    for (let k = this.length[i]! - 1; k >= 0; k -= 1) {
      const s = this.slot(i, k);
      const t = this.times[s]!;
      if (t === openTime) return s;
      if (t < openTime) return -1;
    }
    return -1;
  }
}

export class BarBook {
  private readonly rings = new Map<CandleRange, RangeRings>();
  /** Open times touched since the last takeDirty(). */
  private readonly dirty = new Map<CandleRange, Set<number>>();

  constructor(readonly coinCount: number) {
    for (const range of CANDLE_RANGE_NAMES) {
      this.rings.set(range, new RangeRings(coinCount, CANDLE_RANGES[range].count));
      this.dirty.set(range, new Set());
    }
  }

  /** Coin i's bars of a range, oldest first (a fresh array of fresh objects). */
  coinBars(range: CandleRange, coinIndex: number): readonly BarAccumulator[] {
    const r = this.rings.get(range)!;
    if (coinIndex < 0 || coinIndex >= this.coinCount) return [];
    const out: BarAccumulator[] = new Array(r.length[coinIndex]!);
    for (let k = 0; k < out.length; k += 1) out[k] = r.read(r.slot(coinIndex, k));
    return out;
  }

  /** The bar of a range whose interval holds tSec (newest first), without copying the others. */
  barContaining(range: CandleRange, coinIndex: number, tSec: number): BarAccumulator | undefined {
    const r = this.rings.get(range)!;
    for (let k = r.length[coinIndex]! - 1; k >= 0; k -= 1) {
      const s = r.slot(coinIndex, k);
      const t = r.times[s]!;
      if (t <= tSec) return tSec < t + CANDLE_RANGES[range].barSeconds ? r.read(s) : undefined;
    }
    return undefined;
  }

  /** Open time, low and high of each of coin i's bars of a range, oldest first (no objects). */
  scanLowHigh(range: CandleRange, coinIndex: number, visit: (openSec: number, low: number, high: number) => void): void {
    const r = this.rings.get(range)!;
    for (let k = 0; k < r.length[coinIndex]!; k += 1) {
      const s = r.slot(coinIndex, k);
      visit(r.times[s]!, r.values[s * FIELDS + 2]!, r.values[s * FIELDS + 1]!);
    }
  }

  /** Oldest open time coin i holds in a range (null when none). */
  firstOpen(range: CandleRange, coinIndex: number): number | null {
    const r = this.rings.get(range)!;
    return r.length[coinIndex]! > 0 ? r.times[r.slot(coinIndex, 0)]! : null;
  }

  /** Merges a run's bars: a bar already held (same open time) is continued, newer ones appended. */
  mergeSeries(series: Partial<Record<CandleRange, SimCandleSeries>>): void {
    for (const [range, s] of Object.entries(series) as [CandleRange, SimCandleSeries][]) {
      const r = this.rings.get(range)!;
      const dirty = this.dirty.get(range)!;
      for (let i = 0; i < this.coinCount; i += 1) {
        for (const bar of seriesBars(s, i)) {
          r.add(i, bar, 'merge');
          dirty.add(bar.t);
        }
      }
    }
  }

  /** Rows for the bars changed since the last call (and forgets them). */
  takeDirty(): PackedBarRow[] {
    const rows: PackedBarRow[] = [];
    for (const [range, times] of this.dirty) {
      for (const t of times) rows.push(this.pack(range, t));
      times.clear();
    }
    return rows;
  }

  /** Marks rows dirty again (their write failed; the next checkpoint retries them). */
  markDirty(rows: readonly PackedBarRow[]): void {
    for (const row of rows) this.dirty.get(row.range)!.add(row.openTime);
  }

  /** Every held bar as rows (a cold start's first checkpoint): one pass over each coin's bars. */
  allRows(): PackedBarRow[] {
    for (const times of this.dirty.values()) times.clear(); // every row is returned: nothing stays dirty
    const rows: PackedBarRow[] = [];
    for (const range of CANDLE_RANGE_NAMES) {
      const r = this.rings.get(range)!;
      const byTime = new Map<number, Float64Array>();
      for (let i = 0; i < this.coinCount; i += 1) {
        for (let k = 0; k < r.length[i]!; k += 1) {
          const s = r.slot(i, k);
          const t = r.times[s]!;
          let values = byTime.get(t);
          if (values === undefined) byTime.set(t, (values = new Float64Array(this.coinCount * FIELDS)));
          values.set(r.values.subarray(s * FIELDS, (s + 1) * FIELDS), i * FIELDS);
        }
      }
      for (const t of [...byTime.keys()].sort((a, b) => a - b)) rows.push({ range, openTime: t, data: new Uint8Array(byTime.get(t)!.buffer) });
    }
    return rows;
  }

  /** Oldest open time each range keeps: rows before it can be deleted. */
  windowStarts(): Record<CandleRange, number> {
    const out = {} as Record<CandleRange, number>;
    for (const range of CANDLE_RANGE_NAMES) {
      const r = this.rings.get(range)!;
      let first = Number.POSITIVE_INFINITY;
      for (let i = 0; i < this.coinCount; i += 1) if (r.length[i]! > 0) first = Math.min(first, r.times[r.slot(i, 0)]!);
      out[range] = first === Number.POSITIVE_INFINITY ? 0 : first;
    }
    return out;
  }

  private pack(range: CandleRange, openTime: number): PackedBarRow {
    const values = new Float64Array(this.coinCount * FIELDS);
    const r = this.rings.get(range)!;
    for (let i = 0; i < this.coinCount; i += 1) {
      const s = r.find(i, openTime);
      if (s < 0) continue; // samples stays 0: no bar for this coin
      values.set(r.values.subarray(s * FIELDS, (s + 1) * FIELDS), i * FIELDS);
    }
    return { range, openTime, data: new Uint8Array(values.buffer) };
  }

  /** Rebuilds the book from stored rows; a later row for the same bar replaces an earlier one. */
  static fromRows(coinCount: number, rows: readonly PackedBarRow[]): BarBook {
    const book = new BarBook(coinCount);
    // Stable sort: rows of one bar keep their storage order, so the newest snapshot wins.
    const sorted = [...rows].sort((a, b) => a.openTime - b.openTime);
    for (const row of sorted) {
      const bytes = row.data.byteOffset % 8 === 0 ? row.data : row.data.slice();
      const values = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8);
      if (values.length !== coinCount * FIELDS) throw new RangeError(`stored bar row ${row.range}@${row.openTime} has the wrong size`);
      const r = book.rings.get(row.range)!;
      for (let i = 0; i < coinCount; i += 1) {
        const k = i * FIELDS;
        if (values[k + 5] === 0) continue;
        r.add(i, { t: row.openTime, o: values[k]!, h: values[k + 1]!, l: values[k + 2]!, c: values[k + 3]!, volumeSum: values[k + 4]!, samples: values[k + 5]! }, 'replace');
      }
    }
    return book;
  }
}
