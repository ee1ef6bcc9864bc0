import { BOARD_WINDOWS } from '../arena/windows.js';
import { insertRankSnapshot, pruneRankSnapshots } from '../storage/arena-board-repo.js';
import type { Database } from '../storage/db.js';
import type { Job } from '../workers/scheduler.js';
import { ArenaBoards } from './arena-board.js';
import { freezeScorecardRuns } from './arena-scorecards.js';

const HOUR_MS = 3_600_000;
/** Kept 7 days (supplement §3.11): after a longer gap in the hourly series, rankDelta still has one to compare with. */
const SNAPSHOT_KEEP_MS = 7 * 24 * HOUR_MS;

/** Takes one rank snapshot per board window (for rankDelta) and prunes old ones. */
export async function takeRankSnapshots(database: Database, nowMs: number): Promise<void> {
  const boards = new ArenaBoards(database.db, { now: () => nowMs });
  for (const window of BOARD_WINDOWS) {
    const board = await boards.board(window);
    await insertRankSnapshot(
      database.db,
      window,
      nowMs,
      board.entries.map((e) => e.agent.keyId),
      board.entries.map((_, i) => i + 1),
    );
  }
  await pruneRankSnapshots(database.db, nowMs - SNAPSHOT_KEEP_MS);
}

export function arenaJobs(deps: { database: Database }): Job[] {
  return [
    { name: 'arena-rank-snapshots', intervalMs: HOUR_MS, keepsSchedule: true, run: (nowMs) => takeRankSnapshots(deps.database, nowMs) },
    {
      name: 'arena-scorecard-runs',
      intervalMs: 6 * HOUR_MS,
      keepsSchedule: true,
      async run(nowMs) {
        await freezeScorecardRuns(deps.database.db, nowMs);
      },
    },
  ];
}
