/**
 * Every coin's bars of every candle range, kept in memory and grown by merging the
 * series of each simulation run. Stored as one row per (range, bar open time) holding
 * all coins' bars packed, so a minute's checkpoint writes a handful of rows.
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

export class BarBook {
  /** bars[range][coinIndex], oldest first, at most the range's count. */
  private readonly bars = new Map<CandleRange, BarAccumulator[][]>();
  /** Open times touched since the last takeDirty(). */
  private readonly dirty = new Map<CandleRange, Set<number>>();

  constructor(readonly coinCount: number) {
    for (const range of CANDLE_RANGE_NAMES) {
      this.bars.set(range, Array.from({ length: coinCount }, () => []));
      this.dirty.set(range, new Set());
    }
  }

  coinBars(range: CandleRange, coinIndex: number): readonly BarAccumulator[] {
    return this.bars.get(range)![coinIndex] ?? [];
  }

  /** Merges a run's bars: a bar already held (same open time) is continued, newer ones appended. */
  mergeSeries(series: Partial<Record<CandleRange, SimCandleSeries>>): void {
    for (const [range, s] of Object.entries(series) as [CandleRange, SimCandleSeries][]) {
      const perCoin = this.bars.get(range)!;
      const dirty = this.dirty.get(range)!;
      for (let i = 0; i < this.coinCount; i += 1) {
        for (const bar of seriesBars(s, i)) {
          this.add(perCoin[i]!, bar, CANDLE_RANGES[range].count);
          dirty.add(bar.t);
        }
      }
    }
  }

  /** Continues (merge) or, for a stored snapshot of the same bar, replaces the newest bar. */
  private add(list: BarAccumulator[], bar: BarAccumulator, keep: number, sameBar: 'merge' | 'replace' = 'merge'): void {
    const last = list[list.length - 1];
    if (last !== undefined && last.t === bar.t) list[list.length - 1] = sameBar === 'merge' ? mergeBars(last, bar) : bar;
    else if (last === undefined || bar.t > last.t) list.push(bar);
    else return; // older than what is held: already folded
    if (list.length > keep) list.splice(0, list.length - keep);
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
    this.takeDirty();
    const rows: PackedBarRow[] = [];
    for (const range of CANDLE_RANGE_NAMES) {
      const byTime = new Map<number, Float64Array>();
      const perCoin = this.bars.get(range)!;
      for (let i = 0; i < this.coinCount; i += 1) {
        for (const bar of perCoin[i]!) {
          let values = byTime.get(bar.t);
          if (values === undefined) byTime.set(bar.t, (values = new Float64Array(this.coinCount * FIELDS)));
          values.set([bar.o, bar.h, bar.l, bar.c, bar.volumeSum, bar.samples], i * FIELDS);
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
      const first = this.bars.get(range)!.map((l) => l[0]?.t).filter((t): t is number => t !== undefined);
      out[range] = first.length === 0 ? 0 : Math.min(...first);
    }
    return out;
  }

  private pack(range: CandleRange, openTime: number): PackedBarRow {
    const values = new Float64Array(this.coinCount * FIELDS);
    const perCoin = this.bars.get(range)!;
    for (let i = 0; i < this.coinCount; i += 1) {
      const list = perCoin[i]!;
      // The bar is almost always the newest; search back from the end.
      let bar: BarAccumulator | undefined;
      for (let k = list.length - 1; k >= 0; k -= 1) {
        if (list[k]!.t === openTime) bar = list[k];
        if (list[k]!.t <= openTime) break;
      }
      if (bar === undefined) continue; // samples stays 0: no bar for this coin
      values.set([bar.o, bar.h, bar.l, bar.c, bar.volumeSum, bar.samples], i * FIELDS);
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
      const perCoin = book.bars.get(row.range)!;
      for (let i = 0; i < coinCount; i += 1) {
        const k = i * FIELDS;
        if (values[k + 5] === 0) continue;
        const bar: BarAccumulator = { t: row.openTime, o: values[k]!, h: values[k + 1]!, l: values[k + 2]!, c: values[k + 3]!, volumeSum: values[k + 4]!, samples: values[k + 5]! };
        book.add(perCoin[i]!, bar, CANDLE_RANGES[row.range].count, 'replace');
      }
    }
    return book;
  }
}
