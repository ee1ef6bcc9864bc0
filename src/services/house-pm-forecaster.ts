/**
 * The prediction-market house agent: every step it reads the open binary markets of the
 * tradeable venues from the PM read model, lets the pure forecaster (src/arena/house/
 * pm-forecaster.ts) choose, and opens through the same idempotent service call as
 * `POST /api/agent/pm/open` — so its positions settle with everyone's and its `opened`
 * decisions (forecastProbability, thesis, trace) fill the dataset and Track B scorecards.
 */
import { pmForecaster, type PmFillable, type PmForecastOrder, type PmMarketView } from '../arena/house/pm-forecaster.js';
import { Decimal } from '../domain/money.js';
import { fillReachesCertainty } from '../domain/pm/pricing.js';
import { ApiError } from '../http/errors.js';
import { PM_OPEN_URL } from '../http/routes/agent/pm.js';
import { venueMarketOf } from '../pm/api.js';
import { weightedMedian, type Voice } from '../pm/consensus.js';
import { pmReadModel, type PmSnapshot } from '../pm/read-model.js';
import type { SparkEntry } from '../pm/spark.js';
import type { OutcomeQuote } from '../pm/types.js';
import { venueById } from '../pm/venues.js';
import type { Database } from '../storage/db.js';
import { listHouseAgents, markHouseStep } from '../storage/house-repo.js';
import { listPmPositions } from '../storage/pm-positions-repo.js';
import type { PmMarketRow } from '../storage/pm-repo.js';
import type { Clock } from '../util/clock.js';
import { HOUSE_STEP_MS } from './house-agents.js';
import { openPmPosition, outcomeBook, recordRefusedOpen, refusalKind, type PmOpenInput } from './pm-trading.js';
import { ensureWallet } from './spot-trading.js';

export const PM_FORECASTER_STRATEGY = 'pm-forecaster';

/** Cadence and horizon per SIM_PROFILE: the fast profile's flash markets live minutes. */
export const PM_FORECASTER_PROFILES = {
  fast: { stepMs: 60_000, minTimeLeftMs: 60_000, horizonMs: 20 * 60_000, driftLookbackMs: 3 * 60_000 },
  realistic: { stepMs: HOUSE_STEP_MS, minTimeLeftMs: 3_600_000, horizonMs: 21 * 86_400_000, driftLookbackMs: 6 * 3_600_000 },
} as const;
export type PmForecasterProfile = keyof typeof PM_FORECASTER_PROFILES;

const keyOf = (r: { source: string; slug: string }) => `${r.source}/${r.slug}`;

/** Yes of a binary member, oriented to its cluster's anchor question. */
const anchoredYes = (r: PmMarketRow) => {
  const yes = (r.outcomes as OutcomeQuote[])[0]!.probability;
  return r.orientation === 'flipped' ? 100 - yes : yes;
};

/** The other venues' view of `target`'s Yes: weighted median of 2+, the one price of 1, else null. */
function othersYes(target: PmMarketRow, snap: PmSnapshot): { yes: number | null; venues: number } {
  if (!target.canonicalKey || !target.orientation || target.orientation === 'unknown') return { yes: null, venues: 0 };
  const voices: Voice[] = (snap.clusters.get(target.canonicalKey) ?? [])
    .filter((m) => m.source !== target.source && m.status === 'open' && m.kind === 'binary' && m.orientation && m.orientation !== 'unknown')
    .map((m) => ({ source: m.source, liquidity: m.liquidity, probability: anchoredYes(m) }));
  const venues = new Set(voices.map((v) => v.source)).size;
  const anchored = venues >= 2 ? weightedMedian(voices)!.probability : venues === 1 ? voices.sort((a, b) => b.liquidity - a.liquidity)[0]!.probability : null;
  if (anchored === null) return { yes: null, venues: 0 };
  return { yes: target.orientation === 'flipped' ? 100 - anchored : anchored, venues };
}

/** Yes of the newest capture at or before `atMs` in the listing's sparkline. */
function yesAt(spark: SparkEntry[], atMs: number): number | null {
  let found: number | null = null;
  for (const e of spark) if (e[0]! <= atMs) found = e[1]!;
  return found;
}

/** The open binary markets of the tradeable venues, as the forecaster sees them at `nowMs`. */
export function pmMarketViews(snap: PmSnapshot, nowMs: number, driftLookbackMs: number): PmMarketView[] {
  const views: PmMarketView[] = [];
  for (const r of snap.rows) {
    if (r.status !== 'open' || r.kind !== 'binary' || r.resolutionState !== null || !r.endAt || !venueById(r.source)?.supportsTrading) continue;
    const outcomes = r.outcomes as OutcomeQuote[];
    if (outcomes.length !== 2) continue;
    const others = othersYes(r, snap);
    views.push({
      source: r.source,
      slug: r.slug,
      title: r.title,
      yesOutcomeId: outcomes[0]!.externalMarketId,
      yesPoints: outcomes[0]!.probability,
      consensusYesPoints: others.yes === null ? null : Math.round(others.yes * 10) / 10,
      consensusVenues: others.venues,
      pastYesPoints: yesAt((r.spark ?? []) as SparkEntry[], nowMs - driftLookbackMs),
      endAtMs: r.endAt.getTime(),
    });
  }
  return views;
}

/** Priced as an open would price it: the Yes outcome (the forecaster's views) of the snapshot's row. */
function fillableIn(snap: PmSnapshot, nowMs: number): PmFillable {
  return ({ source, slug, side, stakeMusd }) => {
    const row = snap.byKey.get(keyOf({ source, slug }));
    if (!row) return false;
    const market = venueMarketOf(row, nowMs);
    const yes = market.outcomes[0];
    return yes !== undefined && !fillReachesCertainty(side, outcomeBook(market, yes), new Decimal(stakeMusd));
  };
}

export interface PmForecasterDeps {
  database: Database;
  clock: Clock;
  profile: PmForecasterProfile;
  /** PM_OPEN_ENABLED: when false the forecaster opens nothing. */
  pmOpenEnabled?: boolean;
}

export interface PmForecastOutcome {
  order: PmForecastOrder;
  status: 'opened' | 'replayed' | 'refused';
  reason?: string;
  positionId?: number;
}

/** One step at `nowMs` (once per step tick: a retried run replays instead of opening twice). */
export async function runPmForecaster(deps: PmForecasterDeps, nowMs: number): Promise<PmForecastOutcome[]> {
  if (deps.pmOpenEnabled === false) return [];
  const db = deps.database.db;
  const agent = (await listHouseAgents(db)).find((a) => a.strategy === PM_FORECASTER_STRATEGY);
  const profile = PM_FORECASTER_PROFILES[deps.profile];
  const tick = Math.floor(nowMs / profile.stepMs);
  if (!agent || (agent.lastStepTick !== null && agent.lastStepTick >= tick)) return [];
  const snap = await pmReadModel(deps.database, deps.clock).snapshot();
  const wallet = await ensureWallet(db, agent.keyId);
  const held = new Set((await listPmPositions(db, agent.keyId, null)).filter((p) => p.status === 'open').map((p) => `${p.source}/${p.eventSlug}`));
  const orders = pmForecaster(
    pmMarketViews(snap, nowMs, profile.driftLookbackMs),
    { cashMusd: wallet.available.toNumber(), held },
    { nowMs, minTimeLeftMs: profile.minTimeLeftMs, horizonMs: profile.horizonMs },
    fillableIn(snap, nowMs),
  );
  const clock: Clock = { now: () => nowMs };
  const outcomes: PmForecastOutcome[] = [];
  for (const order of orders) outcomes.push(await openForecast(deps.database, clock, agent.keyId, tick, order, snap));
  await markHouseStep(db, PM_FORECASTER_STRATEGY, tick);
  return outcomes;
}

async function openForecast(database: Database, clock: Clock, keyId: number, tick: number, order: PmForecastOrder, snap: PmSnapshot): Promise<PmForecastOutcome> {
  const idempotencyKey = `house-pm-${tick}-${order.source}-${order.slug}`.slice(0, 200);
  const body = {
    source: order.source,
    slug: order.slug,
    outcomeExternalMarketId: order.outcomeExternalMarketId,
    side: order.side,
    stakeMusd: order.stakeMusd,
    forecastProbability: order.forecastProbability,
    thesis: order.thesis,
    idempotencyKey,
    agentTrace: {
      runId: `${PM_FORECASTER_STRATEGY}-${tick}`,
      decisionId: `${tick}:${keyOf(order)}`,
      strategyLabel: 'house:pm-forecaster-v1',
      confidence: Math.round(Math.min(1, order.edgePoints / 20) * 1000) / 1000,
      rationaleSummary: JSON.stringify(order.basis),
    },
    provenance: {
      runtimeKind: 'hosted_scheduler',
      modelProvider: 'paper-arena',
      modelName: 'house:pm-forecaster-v1',
      evidenceRef: { sourceCapturedAt: snap.byKey.get(keyOf(order))?.lastCaptureAt?.toISOString() ?? null },
    },
  };
  const input: PmOpenInput = {
    ...body,
    keyId,
    runId: body.agentTrace.runId,
    decisionId: body.agentTrace.decisionId,
  };
  try {
    // The same write as the REST route: one read, a pure decision, one guarded write.
    const result = await openPmPosition(database, clock, input, { agentName: 'pm-forecaster-house', agentModel: 'house:pm-forecaster-v1' }, {
      idempotencyKey,
      route: `POST ${PM_OPEN_URL}`,
      body: body as unknown as Record<string, unknown>,
    });
    const position = result.body.position as { id: number };
    return { order, status: result.replay ? 'replayed' : 'opened', positionId: position.id };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const reasons = error.extra.blockReasons as string[] | undefined;
    if (error.statusCode !== 409) await recordRefusedOpen(database, clock, input, refusalKind(error.statusCode, reasons), reasons?.join(',') ?? error.code);
    return { order, status: 'refused', reason: reasons?.join(',') ?? error.code };
  }
}

export function pmForecasterJob(deps: PmForecasterDeps) {
  return {
    name: 'house-pm-forecaster',
    intervalMs: PM_FORECASTER_PROFILES[deps.profile].stepMs,
    async run(nowMs: number) {
      await runPmForecaster(deps, nowMs);
    },
  };
}
