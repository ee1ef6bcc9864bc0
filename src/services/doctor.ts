import type { Queryable } from '../storage/db.js';
import { cashDiscrepancies, countWallets, type BookDiscrepancy } from '../storage/books-repo.js';
import { holdingDiscrepancies, type HoldingDiscrepancy } from '../storage/holdings-repo.js';

export interface DoctorReport {
  ok: boolean;
  walletsChecked: number;
  discrepancies: BookDiscrepancy[];
  /** Coin holdings (spot) whose balance differs from their journal postings. */
  holdingDiscrepancies: HoldingDiscrepancy[];
}

/** Checks every paper book against its journal: cash and coin balances must equal the journal sums. */
export async function checkBooks(db: Queryable): Promise<DoctorReport> {
  const [discrepancies, holdings, walletsChecked] = await Promise.all([cashDiscrepancies(db), holdingDiscrepancies(db), countWallets(db)]);
  return { ok: discrepancies.length === 0 && holdings.length === 0, walletsChecked, discrepancies, holdingDiscrepancies: holdings };
}
