import type { Queryable } from '../storage/db.js';
import { cashDiscrepancies, countWallets, type BookDiscrepancy } from '../storage/books-repo.js';
import { holdingDiscrepancies, type HoldingDiscrepancy } from '../storage/holdings-repo.js';
import { changedMigrations } from '../storage/migrate.js';

export interface DoctorReport {
  ok: boolean;
  walletsChecked: number;
  discrepancies: BookDiscrepancy[];
  /** Coin holdings (spot) whose balance differs from their journal postings. */
  holdingDiscrepancies: HoldingDiscrepancy[];
  /**
   * Applied migrations whose file in this build differs from the text the database ran (an
   * edited migration never runs again). A warning: it does not make the books wrong.
   */
  changedMigrations: string[];
}

/**
 * Checks every paper book against its journal: cash and coin balances must equal the journal
 * sums. Also names migrations changed since they were applied.
 */
export async function checkBooks(db: Queryable): Promise<DoctorReport> {
  const [discrepancies, holdings, walletsChecked, changed] = await Promise.all([
    cashDiscrepancies(db),
    holdingDiscrepancies(db),
    countWallets(db),
    changedMigrations(db),
  ]);
  return { ok: discrepancies.length === 0 && holdings.length === 0, walletsChecked, discrepancies, holdingDiscrepancies: holdings, changedMigrations: changed };
}
