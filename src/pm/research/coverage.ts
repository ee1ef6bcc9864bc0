/**
 * What an agent checks before trusting the PM data: per-venue coverage (reference A10), ingest
 * health (A12) and the daily volume series (A5). Unknown is null, never 0.
 */
import { PM_LAGGING_FROM_MINUTES, PM_STALE_FROM_MINUTES } from '../../domain/freshness.js';
import type { PmMarketRow } from '../../storage/pm-repo.js';
import type { VenueCatalogFacts } from '../../storage/pm-research-repo.js';
import type { PmSnapshot } from '../read-model.js';
import { VENUES, isMoneyVenue } from '../venues.js';
import type { Money } from '../views.js';

const round = (v: number, d = 4) => Math.round(v * 10 ** d) / 10 ** d;
const dayOf = (isoText: string | null) => (isoText ? isoText.slice(0, 10) : null);

function percentile(sorted: number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const rowsBySource = (snap: PmSnapshot) => {
  const by = new Map<string, PmMarketRow[]>(VENUES.map((v) => [v.id, []]));
  for (const r of snap.rows) by.get(r.source)?.push(r);
  return by;
};

export function sourceRows(snap: PmSnapshot, facts: VenueCatalogFacts[], nowMs: number, fx: Money): Record<string, unknown>[] {
  const bySource = rowsBySource(snap);
  const factsBy = new Map(facts.map((f) => [f.source, f]));
  const computedAt = new Date(nowMs).toISOString();
  return VENUES.map((v) => {
    const rows = bySource.get(v.id)!;
    const open = rows.filter((r) => r.status === 'open');
    const closed = rows.filter((r) => r.status !== 'open');
    const anyResolved = closed.filter((r) => r.resolutionState !== null).length;
    const verified = closed.filter((r) => r.resolutionState !== null && r.resolvedAtVerified).length;
    const ages = open.map((r) => Math.max(0, Math.round((nowMs - (r.lastCaptureAt ?? r.updatedAt).getTime()) / 1000))).sort((a, b) => a - b);
    const matched = rows.filter((r) => r.canonicalKey !== null && r.matchConfidence !== null);
    const f = factsBy.get(v.id);
    const firstSeenDay = dayOf(f?.catalogFirstSeenAt ?? null);
    const anyRate = closed.length ? round(anyResolved / closed.length) : null;
    const coverage =
      rows.length === 0
        ? null
        : {
            computedAt,
            // The simulator and our adapters enumerate every open market of the venue in each pass.
            completenessClass: 'open_sweep_exhausted',
            universeVerified: false,
            universeEstimate: null,
            openUniverseVerified: false,
            openUniverseProviderTotal: null,
            openUniverseTotalBasis: null,
            openUniverseEnumerated: open.length,
            enumeratedTotal: rows.length,
            openCount: open.length,
            closedCount: closed.length,
            resolvedProviderCount: verified,
            anyResolutionRate: anyRate,
            providerResolutionRate: closed.length ? round(verified / closed.length) : null,
            freshnessP50Seconds: percentile(ages, 0.5),
            freshnessP95Seconds: percentile(ages, 0.95),
            freshnessP99Seconds: percentile(ages, 0.99),
            catalogFirstSeenDay: firstSeenDay,
            probabilityHistoryStartDay: dayOf(f?.probabilityHistoryStartAt ?? null),
            historyStartDay: firstSeenDay,
            resolutionCoverageRate: anyRate,
            missingFieldRates: {
              description: rows.length ? round(rows.filter((r) => !r.description).length / rows.length) : null,
              endDate: rows.length ? round(rows.filter((r) => !r.endAt).length / rows.length) : null,
              rules: rows.length ? round(rows.filter((r) => !r.rules).length / rows.length) : null,
            },
            approvedMatchCount: matched.length,
            avgMatchConfidence: matched.length ? round(matched.reduce((s, r) => s + r.matchConfidence!, 0) / matched.length) : null,
            lastFullReconciliationAt: snap.health.get(v.id)?.lastSuccessAt?.toISOString() ?? null,
          };
    return {
      id: v.id,
      name: v.name,
      kind: v.kind,
      supportsTrading: v.supportsTrading,
      coverage,
      stats: {
        totalEvents: rows.length,
        openEvents: open.length,
        closedEvents: closed.length,
        volume24h: Math.round(open.reduce((s, r) => s + r.volume24h, 0) * fx.rate * 100) / 100,
        liquidity: Math.round(open.reduce((s, r) => s + r.liquidity, 0) * fx.rate * 100) / 100,
      },
    };
  });
}

export const HEALTH_THRESHOLDS = { laggingFromSeconds: PM_LAGGING_FROM_MINUTES * 60, staleFromSeconds: PM_STALE_FROM_MINUTES * 60 };

export function sourcesHealth(snap: PmSnapshot, nowMs: number): Record<string, unknown> {
  const bySource = rowsBySource(snap);
  const sources = VENUES.map((v) => {
    const h = snap.health.get(v.id);
    const rows = bySource.get(v.id)!;
    const last = h?.lastSuccessAt ?? null;
    const lag = last ? Math.max(0, Math.round((nowMs - last.getTime()) / 1000)) : null;
    const freshness = lag === null ? 'never_ingested' : lag >= HEALTH_THRESHOLDS.staleFromSeconds ? 'stale' : lag >= HEALTH_THRESHOLDS.laggingFromSeconds ? 'lagging' : 'fresh';
    const degraded = [
      ...(lag === null ? ['never_ingested'] : freshness === 'stale' ? ['stale'] : freshness === 'lagging' ? ['lagging'] : []),
      ...(h?.lastError ? ['last_fetch_failed'] : []),
      ...(rows.length === 0 ? ['empty_catalog'] : []),
    ];
    return {
      id: v.id,
      name: v.name,
      isActive: h !== undefined,
      mode: h?.mode ?? null,
      lastIngestAt: last?.toISOString() ?? null,
      lagSeconds: lag,
      freshness,
      openEvents: rows.filter((r) => r.status === 'open').length,
      totalEvents: rows.length,
      catalog: { completenessClass: rows.length ? 'open_sweep_exhausted' : 'unknown', enumerated: rows.length, lastError: h?.lastError ?? null },
      degraded,
    };
  });
  const bad = sources.filter((s) => s.degraded.length > 0);
  return {
    asOf: new Date(nowMs).toISOString(),
    thresholds: HEALTH_THRESHOLDS,
    summary: { venues: sources.length, healthy: sources.length - bad.length, degraded: bad.length, fresh: sources.filter((s) => s.freshness === 'fresh').length },
    degraded: bad.map((s) => ({ id: s.id, name: s.name, reasons: s.degraded })),
    sources,
  };
}

/**
 * Daily global volume over real-money venues; a day no venue reported is null, never 0.
 * `daily` comes from the capture table (day-over-day rise of each market's cumulative volume).
 */
export function volumeHistory(daily: { source: string; day: string; volume: number }[], nowMs: number, firstDay: string | null): Record<string, unknown> {
  const money = VENUES.filter((v) => isMoneyVenue(v.id));
  const byDay = new Map<string, Map<string, number>>();
  for (const d of daily) {
    if (!isMoneyVenue(d.source)) continue;
    if (!byDay.has(d.day)) byDay.set(d.day, new Map());
    byDay.get(d.day)!.set(d.source, d.volume);
  }
  const days: Record<string, unknown>[] = [];
  const start = firstDay ?? [...byDay.keys()].sort()[0] ?? null;
  if (start) {
    const today = new Date(nowMs).toISOString().slice(0, 10);
    for (let t = Date.parse(`${start}T00:00:00Z`); ; t += 86_400_000) {
      const day = new Date(t).toISOString().slice(0, 10);
      if (day > today) break;
      const per = byDay.get(day);
      const values = per ? [...per.values()] : [];
      days.push({
        day,
        volume24h: values.length ? Math.round(values.reduce((a, b) => a + b, 0) * 100) / 100 : null,
        bySource: money.map((v) => ({ source: v.id, name: v.name, volume24h: per?.has(v.id) ? Math.round(per.get(v.id)! * 100) / 100 : null })),
      });
    }
  }
  return { days, updatedAt: new Date(nowMs).toISOString(), meta: { unit: 'USD', venues: money.map((v) => v.id), basis: 'day_over_day_cumulative_volume', windowDays: 90 } };
}
