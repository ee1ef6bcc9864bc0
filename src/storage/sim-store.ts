import type { CandleRange } from '../domain/candles.js';
import type { PackedBarRow } from '../marketdata/sim/bar-book.js';
import type { MarketState } from '../marketdata/sim/state.js';

export interface SimCheckpointMeta {
  seed: string;
  profile: string;
  universeHash: string;
}

export interface SimCheckpoint extends SimCheckpointMeta {
  state: MarketState;
  rows: PackedBarRow[];
}

/**
 * Where the simulated market keeps its checkpoint: the minute state and the bars folded
 * up to it, saved together so a restart resumes from a state that matches its bars.
 * PostgreSQL keeps it in tables (shared by every process); the embedded PGlite setup
 * keeps it in files under DATA_DIR, which is far faster for megabytes of bars.
 */
export interface SimStore {
  load(): Promise<SimCheckpoint | null>;
  save(
    meta: SimCheckpointMeta,
    state: MarketState,
    rows: readonly PackedBarRow[],
    windowStarts: Record<CandleRange, number>,
    options?: { replaceAll?: boolean },
  ): Promise<void>;
}
