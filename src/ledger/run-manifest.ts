import { Decimal, shareOf, toWire } from '../domain/money.js';

/** Ledger row fields the run manifest reads. */
export interface ManifestRow {
  eventType: string;
  ledgerStatus: string;
  venue: string | null;
  endpoint: string;
  latencyMs: number | null;
  relatedEntityType: string | null;
  relatedEntityId: string | null;
  requestSummary: unknown;
  responseSummary: unknown;
  startedAt: string;
}

/** How long a quote counts for a later write on the same instrument (supplement 2.7, ours: 5 min). */
const QUOTE_BEFORE_TRADE_WINDOW_MS = 5 * 60_000;

/**
 * The instrument a request names: the one its handler noted (a futures close: its position's coin),
 * else its body's coinId, or PM source/slug (as the ledger_instrument SQL function reads it).
 */
function instrumentOf(row: Pick<ManifestRow, 'requestSummary'>): string | null {
  const summary = row.requestSummary as { instrument?: unknown; body?: Record<string, unknown> | null } | null;
  if (typeof summary?.instrument === 'string') return summary.instrument;
  const body = summary?.body;
  if (!body) return null;
  if (typeof body.coinId === 'string') return body.coinId;
  return typeof body.source === 'string' && typeof body.slug === 'string' ? `${body.source}/${body.slug}` : null;
}

/** Writes preceded, within the window, by a quote on the same venue and instrument (the performance audit stat's rule). */
function quotedWrites(rows: ManifestRow[]): ManifestRow[] {
  const quotes = rows.filter((r) => r.eventType === 'quote').map((q) => ({ venue: q.venue, instrument: instrumentOf(q), at: Date.parse(q.startedAt) }));
  return rows.filter((w) => {
    if (w.eventType !== 'write') return false;
    const instrument = instrumentOf(w);
    const at = Date.parse(w.startedAt);
    return instrument !== null && quotes.some((q) => q.venue === w.venue && q.instrument === instrument && q.at <= at && q.at >= at - QUOTE_BEFORE_TRADE_WINDOW_MS);
  });
}

/** Rows one ledger-retention batch deletes (a run deletes batches until none is left, up to PRUNE_BATCHES_PER_RUN). */
export const PRUNE_BATCH_MAX = 5000;
export const RETENTION_DAYS = 90;

function tally(values: (string | null)[]): { value: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const v of values) if (v !== null) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count);
}

const hasObservation = (row: ManifestRow) =>
  typeof row.responseSummary === 'object' && row.responseSummary !== null && 'observation' in row.responseSummary;

/** The distinct entities the rows name, in first-seen order. */
export function relatedEntitiesOf(rows: Pick<ManifestRow, 'relatedEntityType' | 'relatedEntityId'>[]): { type: string; id: string }[] {
  const related = new Map<string, { type: string; id: string }>();
  for (const r of rows) {
    if (r.relatedEntityType && r.relatedEntityId) related.set(`${r.relatedEntityType}:${r.relatedEntityId}`, { type: r.relatedEntityType, id: r.relatedEntityId });
  }
  return [...related.values()];
}

/** Entity types a trade-log row can realize PnL on (a PM opportunity `decision` is not one). */
export const TRADE_ENTITY_TYPES: ReadonlySet<string> = new Set(['spot_fill', 'spot_order', 'futures_position', 'pm_position']);

/** A trade-log row of a related entity (`type:id`), as src/storage/trades-repo.ts reads it. */
export interface RelatedOutcome {
  entity: string;
  venue: 'spot' | 'futures' | 'pm';
  realizedPnl: string | null;
}

const OUTCOME_VENUES = ['spot', 'futures', 'pm'] as const;

/**
 * What the run's related entities came to (supplement 2.6 `outcomeSummary`): an entity is
 * matched when a trade-log row realized PnL on it (a spot sell, a resting fill that sold, a
 * futures close / trigger / liquidation, a PM settlement); buys, open positions, refunds and
 * entities without a trade row stay unmatched. Null when the run touched no trade entity.
 */
export function outcomeSummaryOf(related: { type: string; id: string }[], outcomes: RelatedOutcome[]) {
  const wanted = new Set(related.filter((e) => TRADE_ENTITY_TYPES.has(e.type)).map((e) => `${e.type}:${e.id}`));
  if (wanted.size === 0) return null;
  const matched = new Map<string, (typeof OUTCOME_VENUES)[number]>();
  const pnl = { spot: new Decimal(0), futures: new Decimal(0), pm: new Decimal(0) };
  for (const o of outcomes) {
    if (o.realizedPnl === null || !wanted.has(o.entity)) continue;
    matched.set(o.entity, o.venue);
    pnl[o.venue] = pnl[o.venue].plus(o.realizedPnl);
  }
  const count = (venue: (typeof OUTCOME_VENUES)[number]) => [...matched.values()].filter((v) => v === venue).length;
  return {
    schema: 'svc.agentRunOutcomeSummary.v1',
    mode: 'best_effort_related_entities' as const,
    coverage: matched.size === 0 ? ('none' as const) : matched.size === wanted.size ? ('complete' as const) : ('partial' as const),
    relatedEntityCount: wanted.size,
    matchedOutcomeCount: matched.size,
    unmatchedRelatedEntityCount: wanted.size - matched.size,
    realizedPnlMusd: toWire(pnl.spot.plus(pnl.futures).plus(pnl.pm)),
    byVenue: Object.fromEntries(OUTCOME_VENUES.map((v) => [v, { realizedPnlMusd: toWire(pnl[v]), matchedOutcomeCount: count(v) }])) as Record<
      (typeof OUTCOME_VENUES)[number],
      { realizedPnlMusd: number; matchedOutcomeCount: number }
    >,
    caveat:
      'matched through the ledger rows’ related entities only: realized PnL of every trade-log row on an entity the run touched, ' +
      'including later closes by jobs (stop-loss, liquidation, settlement) and by calls outside the run; buys and open positions are unmatched',
  };
}

/** The `run` evidence manifest of a ledger export filtered by `runId` (contract supplement 2.6). */
export function buildRunManifest(input: {
  apiKeyId: number;
  runId: string;
  rows: ManifestRow[];
  total: number;
  maxRows: number;
  generatedAt: string;
  /** trade-log rows of the run's related entities (outcomeSummaryOf) */
  outcomes: RelatedOutcome[];
}) {
  const { rows } = input;
  const chronological = [...rows].sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  const quotes = rows.filter((r) => r.eventType === 'quote');
  const writes = rows.filter((r) => r.eventType === 'write');
  const quotedBefore = quotedWrites(rows);
  const latencies = rows.map((r) => r.latencyMs).filter((v): v is number => v !== null);
  const related = relatedEntitiesOf(rows);
  const observationCount = rows.filter(hasObservation).length;
  const readsAndQuotes = rows.filter((r) => r.eventType === 'quote' || r.eventType === 'read').length;
  const truncated = input.total > rows.length;
  const items = [
    { id: 'events_present', label: 'Run has ledger events', status: rows.length > 0 ? 'pass' : 'fail', detail: `${rows.length} events` },
    { id: 'not_truncated', label: 'Export holds every event of the run', status: truncated ? 'warn' : 'pass', detail: `${rows.length} of ${input.total}` },
    {
      id: 'quote_before_trade',
      label: 'Writes were preceded by a quote on the same instrument (within 5 minutes)',
      status: writes.length === 0 || quotedBefore.length === writes.length ? 'pass' : 'warn',
      detail: `${quotedBefore.length} of ${writes.length} writes`,
    },
  ];
  const overallStatus = items.some((i) => i.status === 'fail') ? 'fail' : items.some((i) => i.status === 'warn') ? 'warn' : 'pass';
  return {
    schema: 'svc.agentRunEvidence.v1',
    generatedAt: input.generatedAt,
    source: 'agent_action_ledger',
    definition: 'Every private-ledger event of this API key that carried this runId, oldest first in the summary.',
    snapshotModel: 'ledger rows are written once and never edited; related paper records may change state later',
    retentionPolicy: {
      schema: 'svc.agentLedgerRetention.v1',
      retentionDays: RETENTION_DAYS,
      runListScanLimit: input.maxRows,
      exportMaxRows: input.maxRows,
      pruneBatchMax: PRUNE_BATCH_MAX,
      policy: `ledger rows are kept at least ${RETENTION_DAYS} days`,
    },
    executionAssumptions: {
      schema: 'svc.executionAssumptions.v1',
      accountModel: 'one independent 50,000 mUSD paper book per API key',
      dataFreshness: 'prices come from the service’s own market captures; quotes state their freshness',
      costModel: {
        spot: 'taker fee on notional; market orders also pay half the spread plus size-scaled slippage',
        futures: 'taker fee on notional at the mark; funding is not modeled',
        predictionMarkets: 'fills at the ask plus size/liquidity slippage and a price-dependent taker fee',
      },
      executionTiming: {
        spotMarket: 'filled at once at the current composite price',
        spotResting: 'limit and stop orders fill when the market crosses their price, checked by a periodic job',
        futures: 'opened and closed at the mark; liquidation and SL/TP checked every minute',
        predictionMarkets: 'opened at the quoted ask; settled when the venue resolves',
      },
      reproducibilityCaveat: 'paper fills are a model, not a fill guarantee; live market data moves between calls',
    },
    outcomeSummary: outcomeSummaryOf(related, input.outcomes),
    evidenceChecklist: { schema: 'svc.agentRunEvidenceChecklist.v1', overallStatus, items },
    summary: {
      apiKeyId: input.apiKeyId,
      runId: input.runId,
      eventCount: rows.length,
      firstEventAt: chronological[0]?.startedAt ?? null,
      lastEventAt: chronological.at(-1)?.startedAt ?? null,
      quoteCount: quotes.length,
      writeCount: writes.length,
      rejectionCount: rows.filter((r) => r.ledgerStatus === 'rejected').length,
      idempotentReplayCount: rows.filter((r) => r.ledgerStatus === 'idempotent_replay').length,
      observationCount,
      observationCoverageRate: shareOf(observationCount, readsAndQuotes),
      quoteBeforeTradeRate: shareOf(quotedBefore.length, writes.length),
      averageLatencyMs: shareOf(latencies.reduce((a, b) => a + b, 0), latencies.length),
      eventTypes: tally(rows.map((r) => r.eventType)),
      venues: tally(rows.map((r) => r.venue)),
      ledgerStatuses: tally(rows.map((r) => r.ledgerStatus)),
      relatedEntities: related,
      maxRows: input.maxRows,
      truncated,
    },
  };
}
