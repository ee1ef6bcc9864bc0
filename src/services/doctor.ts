import type { Queryable } from '../storage/db.js';
import { cashDiscrepancies, countWallets, type BookDiscrepancy } from '../storage/books-repo.js';

export interface DoctorReport {
  ok: boolean;
  walletsChecked: number;
  discrepancies: BookDiscrepancy[];
}

/** Checks every paper book against its journal: balances must equal the journal sums. */
export async function checkBooks(db: Queryable): Promise<DoctorReport> {
  const [discrepancies, walletsChecked] = await Promise.all([cashDiscrepancies(db), countWallets(db)]);
  return { ok: discrepancies.length === 0, walletsChecked, discrepancies };
}
