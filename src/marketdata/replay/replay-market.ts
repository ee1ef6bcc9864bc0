/**
 * Plays a recorded tape as the market. Replay time is tape time: it starts at the tape's
 * first snapshot and runs `speed` times faster than the wall clock, and the whole service
 * uses it as its clock (freshness, orders, ledger), so the same tape and speed give an
 * agent the same prices at the same moments on every run. After the last snapshot the
 * prices hold and turn stale, like a source that stopped.
 */
import type { Clock } from '../../util/clock.js';
import type { Coin } from '../coins.js';
import { SampleMarket, type SnapshotInput } from '../live/sample-market.js';
import type { Tape } from './tape.js';

/** Tape time: startMs + (wall elapsed) × speed. */
export class ReplayClock implements Clock {
  private readonly wallStart: number;

  constructor(
    readonly startMs: number,
    readonly speed: number,
    private readonly wall: Clock,
  ) {
    if (!(speed > 0)) throw new RangeError(`replay speed must be positive, got ${speed}`);
    this.wallStart = wall.now();
  }

  now(): number {
    return Math.floor(this.startMs + (this.wall.now() - this.wallStart) * this.speed);
  }
}

export class ReplayMarket {
  readonly market: SampleMarket;
  readonly clock: ReplayClock;
  private readonly snapshots: readonly SnapshotInput[];
  private next = 0;

  constructor(coins: readonly Coin[], tape: Tape, options: { speed: number; wall: Clock; fiatSeed?: string }) {
    const first = tape.snapshots[0];
    if (!first) throw new RangeError('the tape holds no snapshot');
    this.snapshots = tape.snapshots;
    this.clock = new ReplayClock(first.tMs, options.speed, options.wall);
    this.market = new SampleMarket(coins, { source: 'replay', clock: this.clock, fiatSeed: options.fiatSeed });
    this.advance();
  }

  get startMs(): number {
    return this.snapshots[0]!.tMs;
  }

  get endMs(): number {
    return this.snapshots[this.snapshots.length - 1]!.tMs;
  }

  /** Snapshots played so far, of the total. */
  get progress(): { played: number; total: number; finished: boolean } {
    return { played: this.next, total: this.snapshots.length, finished: this.next >= this.snapshots.length };
  }

  /** Plays every snapshot whose time has come on the replay clock; returns how many. */
  advance(): number {
    const now = this.clock.now();
    let played = 0;
    while (this.next < this.snapshots.length && this.snapshots[this.next]!.tMs <= now) {
      this.market.ingest(this.snapshots[this.next]!);
      this.next += 1;
      played += 1;
    }
    return played;
  }
}
