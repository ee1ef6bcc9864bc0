import type { PmMarketRow } from '../../storage/pm-repo.js';
import { keyOf, type PmSnapshot } from '../read-model.js';
import { eventObject, type Money } from '../views.js';

/** A market's event object in `fx` (USD objects are built once per snapshot). */
export function eventIn(snap: PmSnapshot, row: PmMarketRow, nowMs: number, fx: Money): Record<string, unknown> {
  if (fx.rate === 1) return snap.events.get(keyOf(row))!;
  return eventObject(row, nowMs, fx, snap.refs.get(keyOf(row)) ?? null);
}

/** Offset pagination (reference S1). */
export function pageOf<T>(rows: T[], limit: number, offset: number): { page: T[]; pagination: { limit: number; offset: number; hasMore: boolean } } {
  const page = rows.slice(offset, offset + limit);
  return { page, pagination: { limit, offset, hasMore: offset + page.length < rows.length } };
}
