import { Decimal } from '../domain/money.js';
import { chosenSideMid, type PmSide } from '../domain/pm/pricing.js';
import type { OpenPmMark } from '../storage/pm-positions-repo.js';

/**
 * What open PM positions add to equity beyond cash: Σ (shares × chosen-side probability
 * now − stake); the stake already sits in cash `frozenPm`. An unreadable price marks the
 * position at its stake (adds 0).
 */
export function valueOpenPm(marks: OpenPmMark[]): Decimal {
  let total = new Decimal(0);
  for (const m of marks) {
    const p = m.outcomeProbability;
    if (p === null || !(p >= 0 && p <= 100)) continue;
    const chosen = chosenSideMid(m.side as PmSide, p);
    total = total.plus(new Decimal(m.sharesMusd).times(chosen).div(100).minus(m.stakeMusd));
  }
  return total.toDecimalPlaces(8);
}
