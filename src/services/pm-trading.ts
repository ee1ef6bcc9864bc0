/**
 * Mock PM trading (supplement 1.9, 1.10, 2.5, 3.5): quotes from the venue market as stored,
 * opens inside the idempotent transaction (the quote is re-read and re-checked there), and
 * the PM position view.
 */
import { floorBlockReasons, isOpenAt, pmQuality, qualityGateReasons, shapeBlockReasons, type PmQuality } from '../domain/pm/gates.js';
import { chosenSideMid, complementPoints, edgeSizing, FILL_AT_CERTAINTY, fillReachesCertainty, pmFill, PM_FILL_BASIS, PM_MIN_STAKE_MUSD, type PmBookView, type PmFill, type PmSide } from '../domain/pm/pricing.js';
import { Decimal, orderAmount, toWire } from '../domain/money.js';
import { blocked, notFound } from '../http/errors.js';
import { readVenueMarket, venueMarketOf, type VenueMarketRead } from '../pm/api.js';
import { decisionSupport, type DecisionSupport } from '../pm/decision-support.js';
import { chosenSideReference, keyOf, pmReadModel } from '../pm/read-model.js';
import { decisionInsertRow, recordDecision } from '../storage/arena-decisions-repo.js';
import type { Database } from '../storage/db.js';
import { loadPmMarketWithCluster } from '../storage/pm-repo.js';
import type { PmPositionRow } from '../storage/pm-positions-repo.js';
import { runTradeWrite } from './trade-write.js';
import type { Clock } from '../util/clock.js';

export interface PmQuoteInput {
  source: string;
  slug: string;
  outcomeExternalMarketId: string;
  side?: PmSide;
  stakeMusd: number;
  forecastProbability?: number;
  bankrollMusd?: number;
  minEntryProbabilityPct?: number;
}

type Outcome = VenueMarketRead['outcomes'][number];

/** Everything a quote or an open decides from one read of the market. */
export interface PmPricing {
  market: VenueMarketRead;
  outcome: Outcome;
  side: PmSide;
  stake: Decimal;
  entryProbability: number | null;
  fill: PmFill | null;
  /** shape + floor + stake minimum (quote `blockReasons`) */
  blockReasons: string[];
  quality: PmQuality | null;
  openBlockReasons: string[];
  decisionSupport: DecisionSupport;
  nowMs: number;
}

const priced = (p: number) => p > 0 && p < 100;

export function pricePm(market: VenueMarketRead, input: PmQuoteInput, nowMs: number): PmPricing {
  const outcome = market.outcomes.find((o) => o.externalMarketId === input.outcomeExternalMarketId);
  if (!outcome) throw notFound('outcome_not_found', `no outcome ${input.outcomeExternalMarketId} on ${market.source}/${market.slug}`);
  const side = input.side ?? 'yes';
  const stake = orderAmount(input.stakeMusd);
  const usable = priced(outcome.probability) && !market.resolution && isOpenAt(market, nowMs);
  const entryProbability = priced(outcome.probability) ? chosenSideMid(side, outcome.probability) : null;
  const book = outcomeBook(market, outcome);
  const fill = usable ? pmFill(side, book, stake) : null;
  const blockReasons = [...shapeBlockReasons(market, outcome, nowMs), ...floorBlockReasons(entryProbability, input.minEntryProbabilityPct)];
  if (stake.lessThan(PM_MIN_STAKE_MUSD)) blockReasons.push('stake_below_min');
  if (usable && fillReachesCertainty(side, book, stake)) blockReasons.push(FILL_AT_CERTAINTY);
  const quality = pmQuality(market);
  const leader = Math.max(...market.outcomes.map((o) => o.probability));
  return {
    market,
    outcome,
    side,
    stake,
    entryProbability,
    fill,
    blockReasons,
    quality,
    openBlockReasons: qualityGateReasons(quality, nowMs),
    decisionSupport: decisionSupport({
      spreadPoints: market.spread,
      liquidity: market.liquidity,
      volume24h: market.volume24h,
      leaderProbability: Number.isFinite(leader) ? leader : null,
      endAtMs: market.endAt ? Date.parse(market.endAt) : null,
      nowMs,
    }),
    nowMs,
  };
}

/** What a fill on this outcome is priced from: its mid, its own bid-ask spread (else the market's), the market's liquidity. */
export function outcomeBook(market: VenueMarketRead, outcome: Outcome): PmBookView {
  return { outcomeProbability: outcome.probability, spreadPoints: outcomeSpread(outcome) ?? market.spread ?? 0, liquidityUsd: market.liquidity };
}

function outcomeSpread(o: Outcome): number | null {
  return o.bid !== null && o.ask !== null ? Math.max(0, o.ask - o.bid) : null;
}

/** Outcomes + probabilities as frozen at entry. */
export function frozenSnapshot(p: PmPricing) {
  return {
    outcomes: p.market.outcomes.map((o) => ({ externalMarketId: o.externalMarketId, name: o.name, probability: o.probability })),
    chosen: { externalMarketId: p.outcome.externalMarketId, name: p.outcome.name, side: p.side },
    capturedAt: new Date(p.nowMs).toISOString(),
  };
}

/** The cross-venue reference of the chosen side at entry (null outside a ≥ 2-venue cluster). */
export type SideReference = ReturnType<typeof chosenSideReference>;

/** The decision's frozen entry context (supplement 2.10). */
export function entryContext(p: PmPricing, reference: SideReference) {
  const o = p.outcome;
  const [bid, ask] = p.side === 'yes' ? [o.bid, o.ask] : [o.ask === null ? null : complementPoints(o.ask), o.bid === null ? null : complementPoints(o.bid)];
  return {
    v: 1,
    capturedAt: new Date(p.nowMs).toISOString(),
    marketAsOf: p.market.lastCaptureAt,
    chosenProbability: p.entryProbability,
    volume24h: p.market.volume24h,
    liquidity: p.market.liquidity,
    spread: outcomeSpread(o) ?? p.market.spread,
    bestBid: bid,
    bestAsk: ask,
    referenceProbability: reference?.probability ?? null,
    referenceVenueCount: reference?.venueCount ?? null,
  };
}

/**
 * The market a quote prices, from the process's PM snapshot (at most SNAPSHOT_TTL_MS behind the
 * database, like discover and the event pages) rather than a query per quote; a market the
 * snapshot does not hold yet (just listed) is read from the database. An open re-reads its
 * market inside its transaction.
 */
export async function loadMarketOr404(database: Database, clock: Clock, source: string, slug: string): Promise<VenueMarketRead> {
  const row = (await pmReadModel(database, clock).snapshot()).byKey.get(keyOf({ source, slug }));
  const market = row ? venueMarketOf(row, clock.now()) : await readVenueMarket(database, clock, source, slug);
  if (!market) throw notFound('event_not_found', `no event ${source}/${slug}`);
  return market;
}

/** The quote body (supplement 1.9) without the observation. */
export function quoteBody(p: PmPricing, input: PmQuoteInput, openEnabled: boolean) {
  const shares = p.fill ? round(p.fill.sharesMusd) : null;
  // An open refused by the server flag (PM_OPEN_ENABLED) is not eligible, whatever the market says.
  const blockReasons = openEnabled ? p.blockReasons : ['feature_disabled', ...p.blockReasons];
  const entryEligible = blockReasons.length === 0 && p.fill !== null;
  return {
    eligible: entryEligible,
    blockReasons,
    fillBasis: PM_FILL_BASIS,
    side: p.side,
    entryProbability: p.entryProbability,
    fillProbability: p.fill ? round6(p.fill.fillProbability) : null,
    sharesEstimate: shares,
    maxPayout: shares,
    stakeMusd: input.stakeMusd,
    minStake: PM_MIN_STAKE_MUSD,
    frozenEntrySnapshot: frozenSnapshot(p),
    freshness: p.market.freshness,
    decisionSupport: p.decisionSupport,
    ...(p.quality ? { quality: p.quality } : {}),
    openBlocked: p.openBlockReasons.length > 0,
    openBlockReasons: p.openBlockReasons,
    executionModel: p.fill?.executionModel ?? null,
    eligibility: {
      settlementState: p.market.resolution ? (p.market.resolution.state === 'voided' ? 'voided' : 'settled') : 'pending',
      shape: p.market.kind,
      entryEligible,
      alertEligible: p.market.status === 'open' && !p.market.resolution,
      settlementEligible: p.market.supportsTrading,
      limbo: p.market.status !== 'open' && !p.market.resolution,
    },
    event: { source: p.market.source, slug: p.market.slug, title: p.market.title, status: p.market.status },
    edgeSizing:
      input.forecastProbability === undefined || p.entryProbability === null
        ? null
        : edgeSizing(input.forecastProbability, p.entryProbability, input.bankrollMusd ?? null),
  };
}

const round = (d: Decimal) => d.toDecimalPlaces(6).toNumber();
const round6 = (n: number) => Math.round(n * 1e6) / 1e6;

export interface PmOpenInput extends PmQuoteInput {
  keyId: number;
  forecastProbability?: number;
  thesis?: string;
  runId?: string | null;
  decisionId?: string | null;
  provenance?: Record<string, unknown>;
}

/** Codes meaning the price moved away or vanished between the agent's look and the act. */
const EXPIRED_CODES = new Set(['entry_price_unavailable', 'outcome_unpriced', 'event_settled', 'event_not_open', 'not_open', 'price_stale_near_end']);

/** Maps an open refusal to the kind of decision record kept for it (supplement 1.10 [ours]). */
export function refusalKind(statusCode: number, blockReasons: string[] | undefined): 'validation_failed' | 'risk_rejected' | 'quote_expired' | 'execution_rejected' {
  if (statusCode === 400 || statusCode === 404) return 'validation_failed';
  if (statusCode === 422) return blockReasons && blockReasons.length > 0 && blockReasons.every((r) => EXPIRED_CODES.has(r)) ? 'quote_expired' : 'risk_rejected';
  return 'execution_rejected';
}

/** camelCase key → snake_case column, converted once per key (per open it cost ~75 µs, issue 11). */
const columnNames = new Map<string, string>();

/** Column names of a row object (camelCase keys → snake_case). */
function columnsOf(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(row)) {
    let column = columnNames.get(key);
    if (column === undefined) columnNames.set(key, (column = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)));
    out[column] = row[key];
  }
  return out;
}

/**
 * Opens a position, idempotent by (key, idempotencyKey): one read of the book (with the market
 * and the prior record), the gates (floor first, then shape, quality and cash),
 * and one write: the stake to `frozenPm`, the row and its `opened` decision together.
 * Every refusal is a 422 `mock_entry_blocked`.
 */
export async function openPmPosition(
  database: Database,
  clock: Clock,
  input: PmOpenInput,
  key: { agentName: string | null; agentModel: string | null },
  idempotency: { idempotencyKey: string; route: string; body: Record<string, unknown> },
): Promise<{ statusCode: number; body: Record<string, unknown>; replay: boolean }> {
  const nowMs = clock.now();
  const refuse = (reasons: string[]) => blocked(422, 'mock_entry_blocked', reasons, `the PM entry was refused: ${reasons.join(', ')}`);
  const result = await runTradeWrite(database.db, {
    // the market comes with the book (one round trip); a missing event answers 404 only when this is not a replay
    read: { keyId: input.keyId, pmMarket: { source: input.source, slug: input.slug } },
    idempotency,
    decide: (book) => {
      if (!book.pmMarket) throw notFound('event_not_found', `no event ${input.source}/${input.slug}`);
      const market = venueMarketOf(book.pmMarket, nowMs);
      const p = pricePm(market, input, nowMs);
      const reference = chosenSideReference(book.pmMarket, book.pmCluster ?? [], p.outcome.externalMarketId, p.side);
      const floor = floorBlockReasons(p.entryProbability, input.minEntryProbabilityPct);
      if (floor.length > 0) throw refuse(floor);
      const reasons = [...p.blockReasons, ...p.openBlockReasons];
      if ((!p.fill || p.entryProbability === null) && !reasons.includes(FILL_AT_CERTAINTY)) reasons.push('entry_price_unavailable');
      if (p.stake.gt(book.wallet.available)) reasons.push('insufficient_usdt_balance');
      if (reasons.length > 0) throw refuse([...new Set(reasons)]);
      const fill = p.fill!;
      const now = new Date(nowMs);
      const values = {
        keyId: input.keyId,
        walletId: book.wallet.id,
        source: market.source,
        eventSlug: market.slug,
        eventTitle: market.title,
        outcomeExternalId: p.outcome.externalMarketId,
        outcomeLabel: p.outcome.name,
        side: p.side,
        fillBasis: PM_FILL_BASIS,
        entryProbability: p.entryProbability!,
        fillProbability: fill.fillProbability,
        entryProbSum: market.outcomes.reduce((s, o) => s + o.probability, 0),
        stakeMusd: p.stake.toString(),
        sharesMusd: fill.sharesMusd.toDecimalPlaces(8).toString(),
        feeMusd: fill.feeMusd.toDecimalPlaces(8).toString(),
        shape: market.kind,
        marketsCount: market.outcomes.length,
        entryOutcomesSnapshot: frozenSnapshot(p),
        freshnessAtEntry: { ...market.freshness },
        eventStatusAtEntry: market.status,
        status: 'open' as const,
        settlementState: 'pending' as const,
        openedAt: now,
        createdAt: now,
        updatedAt: now,
      };
      const decision = decisionInsertRow(
        {
          ...decisionSubject(p, input, reference),
          keyId: input.keyId,
          opportunityKind: 'opened',
          outcomesCount: market.outcomes.length,
          stakeMusd: p.stake,
          sharesMusd: new Decimal(values.sharesMusd),
          createdAtMs: nowMs,
        },
        { id: input.keyId, ...key },
      );
      const ref = { refType: 'pm_position', refId: { created: 'pm_position' as const } };
      const row = { ...values, id: 0, voidReason: null, payoutMusd: null, pnlMusd: null, settledAt: null } as PmPositionRow;
      return {
        effects: {
          rows: [
            { table: 'pm_positions', row: columnsOf(values), as: 'pm_position' },
            { table: 'arena_decisions', row: { ...decision, $refs: { position_id: 'pm_position' } } },
          ],
          cash: [
            { bucket: 'available', amount: p.stake.negated(), reason: 'pm_stake', ...ref },
            { bucket: 'frozenPm', amount: p.stake, reason: 'pm_stake', ...ref },
          ],
        },
        statusCode: 201,
        body: { position: pmPositionView(row) },
        idPaths: [{ path: ['position', 'id'], from: 'pm_position' }],
        result: null,
      };
    },
  });
  return { statusCode: result.statusCode, body: result.body, replay: result.replay };
}

/** The decision fields that describe the market and the agent's intent. */
export function decisionSubject(p: PmPricing | null, input: PmOpenInput, reference: SideReference) {
  return {
    venue: input.source,
    eventTitle: p?.market.title ?? null,
    eventSlug: input.slug,
    eventId: p?.market.eventId ?? null,
    side: p?.side ?? input.side ?? 'yes',
    chosenOutcome: p?.outcome.name ?? null,
    agentForecastProbability: input.forecastProbability ?? null,
    thesis: input.thesis ?? null,
    marketProbability: p?.entryProbability ?? null,
    referenceProbability: reference?.probability ?? null,
    referenceVenueCount: reference?.venueCount ?? null,
    runId: input.runId ?? null,
    decisionId: input.decisionId ?? null,
    decisionContext: p ? entryContext(p, reference) : null,
    provenance: input.provenance ?? null,
  };
}

/** Records a refused open as a non-opened decision (its own transaction: the refused one rolled back). */
export async function recordRefusedOpen(database: Database, clock: Clock, input: PmOpenInput, kind: ReturnType<typeof refusalKind>, reasonCode: string): Promise<void> {
  const nowMs = clock.now();
  let p: PmPricing | null = null;
  let reference: SideReference = null;
  try {
    const read = await loadPmMarketWithCluster(database.db, input.source, input.slug);
    if (read) {
      p = pricePm(venueMarketOf(read.market, nowMs), input, nowMs);
      reference = chosenSideReference(read.market, read.cluster, p.outcome.externalMarketId, p.side);
    }
  } catch {
    p = null;
  }
  await database.db.transaction(async (tx) => {
    await recordDecision(tx, { ...decisionSubject(p, input, reference), keyId: input.keyId, opportunityKind: kind, reasonCode, createdAtMs: nowMs });
  });
}

const num = (v: string | null) => (v === null ? null : Number(v));

/** The PM position (supplement 2.5); `live` adds the list-only live fields of open rows. */
export function pmPositionView(row: PmPositionRow, live?: { market: VenueMarketRead | null; relatedCoins?: string[] }) {
  const shares = Number(row.sharesMusd);
  const stake = Number(row.stakeMusd);
  const base = {
    id: row.id,
    status: row.status,
    source: row.source,
    eventSlug: row.eventSlug,
    eventTitle: row.eventTitle,
    outcome: { externalMarketId: row.outcomeExternalId, label: row.outcomeLabel, tokenId: null },
    side: row.side,
    fillBasis: row.fillBasis,
    entryProbability: row.entryProbability,
    // stored exact (the shares were computed from it), shown to 6 places like the quote
    fillProbability: round6(row.fillProbability),
    entryProbSum: row.entryProbSum,
    stakeMusd: stake,
    sharesMusd: shares,
    maxPayout: shares,
    feeMusd: Number(row.feeMusd),
    shape: row.shape,
    marketsCount: row.marketsCount,
    entryOutcomesSnapshot: row.entryOutcomesSnapshot,
    freshnessAtEntry: row.freshnessAtEntry,
    eventStatusAtEntry: row.eventStatusAtEntry,
    settlementState: row.settlementState,
    voidReason: row.voidReason,
    payoutMusd: num(row.payoutMusd),
    pnlMusd: num(row.pnlMusd),
    openedAt: row.openedAt.toISOString(),
    settledAt: row.settledAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
  if (!live) return base;
  const outcome = live.market?.outcomes.find((o) => o.externalMarketId === row.outcomeExternalId);
  const open = row.status === 'open';
  const current = open && outcome && outcome.probability >= 0 && outcome.probability <= 100 ? chosenSideMid(row.side as PmSide, outcome.probability) : null;
  // exact, then to 8 places like the portfolio's otherVenuesUsd (services/pm-trading-equity.ts)
  const mark = current === null ? null : new Decimal(row.sharesMusd).times(current).div(100);
  return {
    ...base,
    currentProbability: current,
    unrealizedMark: mark === null ? null : toWire(mark),
    unrealizedPnl: mark === null ? null : toWire(mark.minus(row.stakeMusd)),
    ...(live.relatedCoins ? { relatedCoins: live.relatedCoins } : {}),
    eventEndDate: live.market?.endAt ?? null,
  };
}
