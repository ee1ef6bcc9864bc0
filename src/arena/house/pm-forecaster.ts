/**
 * The prediction-market house forecaster: forms its own chance for open binary markets and
 * takes small paper positions where it disagrees with the venue's price.
 *
 * Its forecast of Yes, in log-odds:
 *   anchor  = the other venues' consensus for the same question (liquidity-capped weighted
 *             median, oriented to this listing's Yes) when at least one other venue lists it,
 *             else this venue's own price;
 *   drift   = this listing's move over the last `driftLookbackMs` (log-odds now − then);
 *   forecast = anchor + DRIFT_WEIGHT × drift   (prices that moved tend to keep moving a little).
 * It enters the side its forecast favours when the edge over the price paid is at least
 * MIN_EDGE_POINTS, in markets ending within the horizon, never twice in one market.
 * Pure: no clock, randomness or I/O, so a step is a function of the markets shown and the
 * book (under SIM_SEED the simulated markets, and with them every decision, repeat exactly).
 */

export const PM_FORECASTER = {
  /** Weight of the listing's own recent log-odds move on top of the consensus anchor. */
  driftWeight: 0.5,
  /** Smallest edge (forecast − price of the chosen side, points) worth a position. */
  minEdgePoints: 2,
  /** Markets priced outside this band (points) are as good as decided: left alone. */
  minYesPoints: 5,
  maxYesPoints: 95,
  /** Forecasts are kept inside 2..98 (never certain). */
  forecastFloor: 2,
  /** Stake per position: this share of available cash, at most maxStakeMusd. */
  stakeCashShare: 0.01,
  maxStakeMusd: 500,
  minStakeMusd: 10,
  /** At most this many new positions per step and open at once. */
  maxOpensPerStep: 2,
  maxOpenPositions: 10,
} as const;

/** One open binary market as the forecaster sees it (probabilities in points, 0..100). */
export interface PmMarketView {
  source: string;
  slug: string;
  title: string;
  /** externalMarketId of the listing's Yes outcome (its first). */
  yesOutcomeId: string;
  yesPoints: number;
  /** Other venues' consensus for this listing's Yes; null when no other venue prices it. */
  consensusYesPoints: number | null;
  consensusVenues: number;
  /** This listing's Yes about `driftLookbackMs` ago; null without a capture that old. */
  pastYesPoints: number | null;
  endAtMs: number;
}

export interface PmForecasterBook {
  cashMusd: number;
  /** `source/slug` of every market with an open position. */
  held: ReadonlySet<string>;
}

export interface PmForecasterWindow {
  nowMs: number;
  /** Only markets ending in (nowMs + minTimeLeftMs, nowMs + horizonMs] are considered. */
  minTimeLeftMs: number;
  horizonMs: number;
}

export interface PmForecastOrder {
  source: string;
  slug: string;
  outcomeExternalMarketId: string;
  side: 'yes' | 'no';
  stakeMusd: number;
  /** Own chance that the chosen side wins, points (1..99). */
  forecastProbability: number;
  edgePoints: number;
  thesis: string;
  /** Inputs of the forecast, for the decision trace. */
  basis: { anchor: 'consensus' | 'own_price'; anchorYesPoints: number; driftLogOdds: number; forecastYesPoints: number };
}

const logit = (p: number) => Math.log(p / (100 - p));
const fromLogit = (x: number) => 100 / (1 + Math.exp(-x));
const clamp = (p: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, p));
const round1 = (x: number) => Math.round(x * 10) / 10;

/** The forecaster's own chance of Yes for one market (points, rounded to 0.1). */
export function forecastYes(m: PmMarketView): PmForecastOrder['basis'] {
  const lo = PM_FORECASTER.forecastFloor;
  const hi = 100 - lo;
  const useConsensus = m.consensusYesPoints !== null && m.consensusVenues >= 1;
  const anchor = clamp(useConsensus ? m.consensusYesPoints! : m.yesPoints, lo, hi);
  const drift = m.pastYesPoints === null ? 0 : logit(clamp(m.yesPoints, lo, hi)) - logit(clamp(m.pastYesPoints, lo, hi));
  const forecast = round1(clamp(fromLogit(logit(anchor) + PM_FORECASTER.driftWeight * drift), lo, hi));
  return { anchor: useConsensus ? 'consensus' : 'own_price', anchorYesPoints: round1(anchor), driftLogOdds: Math.round(drift * 1000) / 1000, forecastYesPoints: forecast };
}

/** Whether the venue would fill this entry (an ask with slippage at 99.9 is refused: `fill_at_certainty`). */
export type PmFillable = (entry: { source: string; slug: string; side: 'yes' | 'no'; stakeMusd: number }) => boolean;

/**
 * The step's orders: the largest edges first, sized from cash, within the position limits; an
 * entry the venue would refuse is passed over for the next (refused each step, it took a slot).
 */
export function pmForecaster(markets: readonly PmMarketView[], book: PmForecasterBook, window: PmForecasterWindow, fillable: PmFillable = () => true): PmForecastOrder[] {
  const P = PM_FORECASTER;
  const candidates = markets
    .filter((m) => !book.held.has(`${m.source}/${m.slug}`))
    .filter((m) => m.yesPoints >= P.minYesPoints && m.yesPoints <= P.maxYesPoints)
    .filter((m) => m.endAtMs > window.nowMs + window.minTimeLeftMs && m.endAtMs <= window.nowMs + window.horizonMs)
    .map((m) => {
      const basis = forecastYes(m);
      const edgeYes = basis.forecastYesPoints - m.yesPoints;
      return { m, basis, edge: Math.abs(edgeYes), side: edgeYes >= 0 ? ('yes' as const) : ('no' as const) };
    })
    .filter((c) => c.edge >= P.minEdgePoints)
    .sort((a, b) => b.edge - a.edge || a.m.endAtMs - b.m.endAtMs || (`${a.m.source}/${a.m.slug}` < `${b.m.source}/${b.m.slug}` ? -1 : 1));
  const orders: PmForecastOrder[] = [];
  let cash = book.cashMusd;
  const slots = Math.min(P.maxOpensPerStep, P.maxOpenPositions - book.held.size);
  for (const c of candidates) {
    if (orders.length >= slots) break;
    const stake = Math.floor(Math.min(cash * P.stakeCashShare, P.maxStakeMusd));
    if (stake < P.minStakeMusd) break;
    if (!fillable({ source: c.m.source, slug: c.m.slug, side: c.side, stakeMusd: stake })) continue;
    const own = c.side === 'yes' ? c.basis.forecastYesPoints : round1(100 - c.basis.forecastYesPoints);
    const price = c.side === 'yes' ? c.m.yesPoints : round1(100 - c.m.yesPoints);
    const from = c.basis.anchor === 'consensus' ? `the other venues' consensus (${c.basis.anchorYesPoints} Yes)` : `its own price`;
    orders.push({
      source: c.m.source,
      slug: c.m.slug,
      outcomeExternalMarketId: c.m.yesOutcomeId,
      side: c.side,
      stakeMusd: stake,
      forecastProbability: clamp(own, 1, 99),
      edgePoints: round1(c.edge),
      thesis: `${c.side === 'yes' ? 'Yes' : 'No'} at ${price} vs own ${own}: from ${from} and a recent drift of ${c.basis.driftLogOdds} log-odds.`.slice(0, 280),
      basis: c.basis,
    });
    cash -= stake;
  }
  return orders;
}
