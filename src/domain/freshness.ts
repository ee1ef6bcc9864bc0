import { isoAt } from '../util/iso-time.js';

/** Freshness of a price-bearing read (contract supplement 1.0 and 3.6). */
export interface Freshness {
  asOf: string | null;
  ageSeconds?: number | null;
  ageMinutes?: number | null;
  status: 'fresh' | 'lagging' | 'stale' | 'unknown';
  basis?: 'latest_snapshot' | 'source_update' | 'processed' | 'event_update' | 'unknown' | null;
}

/** Spot and futures prices turn stale after 120 s without a new price. */
export const SPOT_STALE_AFTER_SECONDS = 120;
/** PM data: fresh under 45 min, lagging under 2 h, stale from 2 h. */
export const PM_LAGGING_FROM_MINUTES = 45;
export const PM_STALE_FROM_MINUTES = 120;

export function spotFreshness(asOfMs: number | null, nowMs: number): Freshness {
  if (asOfMs === null) return { asOf: null, ageSeconds: null, status: 'unknown' };
  const ageSeconds = Math.max(0, Math.round((nowMs - asOfMs) / 1000));
  return {
    asOf: isoAt(asOfMs),
    ageSeconds,
    // from the exact age, as the write paths judge it (120.4 s is stale though shown as 120)
    status: nowMs - asOfMs <= SPOT_STALE_AFTER_SECONDS * 1000 ? 'fresh' : 'stale',
  };
}

export function pmFreshness(asOfMs: number | null, nowMs: number, basis: NonNullable<Freshness['basis']> = 'latest_snapshot'): Freshness {
  if (asOfMs === null) return { asOf: null, ageMinutes: null, status: 'unknown', basis: 'unknown' };
  const ageMinutes = Math.max(0, Math.round(((nowMs - asOfMs) / 60_000) * 10) / 10);
  const status = ageMinutes < PM_LAGGING_FROM_MINUTES ? 'fresh' : ageMinutes < PM_STALE_FROM_MINUTES ? 'lagging' : 'stale';
  return { asOf: isoAt(asOfMs), ageMinutes, status, basis };
}
