/**
 * One coin's price samples (unix s, USD price, rolling 24 h USD volume) as growable typed
 * columns, oldest first. Live and replay markets keep every coin's samples here and build
 * candles from them; thinning keeps memory bounded while every candle range stays covered.
 */
import type { PriceSample } from '../../domain/candles.js';

/** Samples younger than `maxAgeSec` keep one per `slotSec` (the last of each slot); older ones are dropped. */
export const THINNING_TIERS: readonly { maxAgeSec: number; slotSec: number }[] = [
  { maxAgeSec: 2 * 3600, slotSec: 1 }, // the last two hours: every sample
  { maxAgeSec: 26 * 3600, slotSec: 60 }, // 1D range (5-minute bars): up to 5 samples a bar
  { maxAgeSec: 8 * 86_400, slotSec: 300 }, // 1W range (15-minute bars): 3 a bar
  { maxAgeSec: 31 * 86_400, slotSec: 1200 }, // 1M range (1-hour bars): 3 a bar
  { maxAgeSec: 92 * 86_400, slotSec: 3600 }, // 3M range (4-hour bars): 4 a bar
];

export class SampleSeries {
  private t = new Float64Array(64);
  private p = new Float64Array(64);
  private v = new Float64Array(64);
  private n = 0;

  get length(): number {
    return this.n;
  }

  timeAt(k: number): number {
    return this.t[k]!;
  }

  priceAt(k: number): number {
    return this.p[k]!;
  }

  last(): PriceSample | null {
    return this.n === 0 ? null : this.at(this.n - 1);
  }

  at(k: number): PriceSample {
    return { t: this.t[k]!, price: this.p[k]!, volume24hUsd: this.v[k]! };
  }

  /** Adds one sample; a sample at an already stored second replaces it; an older one is inserted in order. */
  add(tSec: number, price: number, volume24hUsd: number): void {
    if (!(Number.isFinite(tSec) && Number.isFinite(price) && price > 0)) return;
    const volume = Number.isFinite(volume24hUsd) && volume24hUsd >= 0 ? volume24hUsd : 0;
    if (this.n > 0 && tSec <= this.t[this.n - 1]!) {
      this.insert(tSec, price, volume);
      return;
    }
    this.grow(this.n + 1);
    this.t[this.n] = tSec;
    this.p[this.n] = price;
    this.v[this.n] = volume;
    this.n += 1;
  }

  private insert(tSec: number, price: number, volume: number): void {
    const k = this.firstAtOrAfter(tSec);
    if (k < this.n && this.t[k] === tSec) {
      this.p[k] = price;
      this.v[k] = volume;
      return;
    }
    this.grow(this.n + 1);
    this.t.copyWithin(k + 1, k, this.n);
    this.p.copyWithin(k + 1, k, this.n);
    this.v.copyWithin(k + 1, k, this.n);
    this.t[k] = tSec;
    this.p[k] = price;
    this.v[k] = volume;
    this.n += 1;
  }

  private grow(size: number): void {
    if (size <= this.t.length) return;
    const capacity = Math.max(size, this.t.length * 2);
    const widen = (a: Float64Array) => {
      const b = new Float64Array(capacity);
      b.set(a.subarray(0, this.n));
      return b;
    };
    this.t = widen(this.t);
    this.p = widen(this.p);
    this.v = widen(this.v);
  }

  /** Index of the first sample at or after tSec (length when none). */
  firstAtOrAfter(tSec: number): number {
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.t[mid]! < tSec) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Samples from the last one before fromSec (what a flat first bar repeats) to the newest. */
  samplesFrom(fromSec: number): PriceSample[] {
    const start = Math.max(0, this.firstAtOrAfter(fromSec) - 1);
    const out: PriceSample[] = new Array(this.n - start);
    for (let k = start; k < this.n; k += 1) out[k - start] = this.at(k);
    return out;
  }

  /** The price at or just before tSec; null when no sample is that old. */
  priceAtOrBefore(tSec: number): number | null {
    const k = this.firstAtOrAfter(tSec);
    if (k < this.n && this.t[k] === tSec) return this.p[k]!;
    return k === 0 ? null : this.p[k - 1]!;
  }

  /**
   * Lowest and highest price in (fromSec, toSec], counting the price in force at fromSec
   * (the last earlier sample): between two samples the price moved from one to the other.
   */
  range(fromSec: number, toSec: number): { low: number; high: number } | null {
    let k = this.firstAtOrAfter(fromSec);
    if (k > 0 && (k === this.n || this.t[k] !== fromSec)) k -= 1;
    let low = Number.POSITIVE_INFINITY;
    let high = 0;
    for (; k < this.n && this.t[k]! <= toSec; k += 1) {
      const price = this.p[k]!;
      if (price < low) low = price;
      if (price > high) high = price;
    }
    return high === 0 ? null : { low, high };
  }

  /** Keeps the last sample of each tier slot and drops what no range shows any more. */
  thin(nowSec: number): void {
    let write = 0;
    for (let k = 0; k < this.n; k += 1) {
      const tSec = this.t[k]!;
      const slot = slotOf(tSec, nowSec);
      if (slot === null) continue;
      const next = k + 1 < this.n ? this.t[k + 1]! : null;
      // Keep k unless the next sample falls in the same slot of the same tier (it supersedes k).
      if (next !== null && slot.slotSec > 1 && Math.floor(next / slot.slotSec) === Math.floor(tSec / slot.slotSec) && slotOf(next, nowSec)?.slotSec === slot.slotSec) continue;
      this.t[write] = tSec;
      this.p[write] = this.p[k]!;
      this.v[write] = this.v[k]!;
      write += 1;
    }
    this.n = write;
  }
}

function slotOf(tSec: number, nowSec: number): { slotSec: number } | null {
  const age = nowSec - tSec;
  for (const tier of THINNING_TIERS) if (age <= tier.maxAgeSec) return tier;
  return null;
}
