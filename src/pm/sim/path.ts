/**
 * How a listed market moves: a pure function of (question, listing, time). Probabilities
 * are a calibrated market's posterior (canonicalProbabilities), converging to the real outcome
 * as the end nears (most well before it, some only in their last hours: Question.revealWindowMs);
 * each venue adds its own noise, larger where liquidity is thin.
 */
import { drawHash, hashString, hashToNormal, hashToUnit, combine32 } from '../../marketdata/sim/random.js';
import type { MarketResolution, MarketState, OutcomeQuote, WhalePrint } from '../types.js';
import { DAY_MS, HOUR_MS, type Listing, type PriceThreshold, type Question } from './questions.js';

const smooth = (x: number) => x * x * (3 - 2 * x);

function valueNoise(key: number, t: number, period: number): number {
  const x = t / period;
  const i = Math.floor(x);
  const a = hashToNormal(drawHash(key, i));
  const b = hashToNormal(drawHash(key, i + 1));
  return a + (b - a) * smooth(x - i);
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));
const logit = (p: number) => Math.log(p / (1 - p));
const clampP = (p: number) => Math.min(0.995, Math.max(0.005, p));

/** Standard normal CDF (Abramowitz–Stegun 7.1.26 on erf; |error| < 1.5e-7). */
function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const k = 1 / (1 + 0.3275911 * x);
  const erf = 1 - ((((1.061405429 * k - 1.453152027) * k + 1.421413741) * k - 0.284496736) * k + 0.254829592) * k * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/**
 * Chance that the coin ends above the threshold, given its simulated price at t: a lognormal
 * move over the time left at the coin's volatility. From the end on, the settled answer.
 */
function thresholdYes(th: PriceThreshold, winner: number | null, t: number): number {
  if (t >= th.settleAtMs && th.settled) return winner === 0 ? 1 : 0;
  const price = th.knownAt(Math.min(t, th.settleAtMs));
  if (price === null) return 0.5;
  const daysLeft = Math.max(th.settleAtMs - t, 60_000) / DAY_MS;
  return clampP(normalCdf(Math.log(price / th.value) / (th.dailyVol * Math.sqrt(daysLeft))));
}

/** Value noise scaled to unit variance at every t (interpolating two normals shrinks it between the knots). */
function unitValueNoise(key: number, t: number, period: number): number {
  const s = smooth(t / period - Math.floor(t / period));
  return valueNoise(key, t, period) / Math.sqrt((1 - s) ** 2 + s * s);
}

/** Information the market has at the end of a question (in log-odds): enough to be all but certain. */
const FINAL_INFORMATION = 40;
/** Information from the start (a share of the final), so a market moves from its first hour. */
const OPENING_INFORMATION_SHARE = 0.02;

/**
 * Canonical probabilities (0..1) of the question's outcomes at t: the posterior of a market that
 * started from the base odds (the winner is drawn with them) and has since observed, per
 * outcome, a signal of mean `info` for the winner and 0 for the others plus noise of variance
 * `info`. Such prices are calibrated by construction: of outcomes priced at 30 %, about 30 %
 * win, at any time. `info` grows as the cube of the share of the reveal window gone
 * (Question.revealWindowMs): most questions look decided well before their end, some only in
 * their last hours.
 */
export function canonicalProbabilities(seedKey: number, q: Question, t: number): number[] {
  if (q.threshold) {
    const yes = thresholdYes(q.threshold, q.winner, Math.max(t, q.openAt));
    return [yes, 1 - yes];
  }
  const at = Math.min(Math.max(t, q.openAt), q.endAt);
  const qk = combine32(seedKey, hashString(q.key));
  const S = q.noiseScaleMs;
  const revealed = Math.max(0, at - (q.endAt - q.revealWindowMs)) / Math.max(1, q.revealWindowMs);
  const info = FINAL_INFORMATION * (OPENING_INFORMATION_SHARE + (1 - OPENING_INFORMATION_SHARE) * revealed ** 3);
  const logits = q.baseLogits.map((base, i) => {
    // two time scales of unit-variance noise, weighted 0.8 / 0.6: unit variance again
    const noise = 0.8 * unitValueNoise(combine32(qk, i * 2 + 1), at, 4 * S) + 0.6 * unitValueNoise(combine32(qk, i * 2 + 2), at, S);
    return base + (i === q.winner ? info : 0) + Math.sqrt(info) * noise;
  });
  const top = Math.max(...logits);
  const e = logits.map((l) => Math.exp(l - top));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / sum);
}

function listingKey(seedKey: number, q: Question, l: Listing): number {
  return combine32(combine32(seedKey, hashString(q.key)), hashString(l.venue.id));
}

/** The venue's view: its noise, its orientation, its tick. Values 0..100 in the listing's outcome order. */
export function listingProbabilities(seedKey: number, q: Question, l: Listing, t: number): number[] {
  const canonical = canonicalProbabilities(seedKey, q, t);
  const lk = listingKey(seedKey, q, l);
  const amplitude = Math.min(2, Math.max(0.3, 1 / Math.sqrt(l.liquidity / 20_000))) * 0.18;
  const at = Math.min(Math.max(t, q.openAt), q.endAt);
  let probs: number[];
  if (q.kind === 'binary') {
    const yes = sigmoid(logit(clampP(canonical[0]!)) + amplitude * valueNoise(lk, at, 3 * HOUR_MS));
    const listed = l.variant === 'flipped' ? 1 - yes : yes;
    probs = [listed, 1 - listed];
  } else {
    const shifted = canonical.map((p, i) => Math.exp(logit(clampP(p)) + amplitude * valueNoise(combine32(lk, i + 1), at, 3 * HOUR_MS)));
    const sum = shifted.reduce((a, b) => a + b, 0);
    probs = shifted.map((x) => x / sum);
  }
  const tick = l.venue.id === 'kalshi' ? 1 : 0.1;
  // a venue quotes an open outcome one tick inside 0 and 100 at most
  return probs.map((p) => Math.min(100 - tick, Math.max(tick, Math.round((p * 100) / tick) * tick))).map((p) => Number(p.toFixed(1)));
}

function cumulativeVolume(q: Question, l: Listing, t: number): number {
  const h = Math.max(0, (Math.min(t, q.endAt) - q.openAt) / HOUR_MS);
  const w = (2 * Math.PI) / 24;
  const phase = (hashString(l.slug) % 628) / 100;
  const wave = (0.6 / w) * (Math.cos(phase) - Math.cos(w * h + phase));
  const lifeH = (q.endAt - q.openAt) / HOUR_MS;
  const late = Math.max(0, h - 0.8 * lifeH);
  return l.volumeRatePerHour * (h + wave + 2 * late);
}

/** Winner index in the listing's outcome order (flipped binaries swap Yes and No). */
function listingWinner(q: Question, l: Listing): number | null {
  if (q.winner === null) return null;
  return q.kind === 'binary' && l.variant === 'flipped' ? 1 - q.winner : q.winner;
}

/** Venue outcome id: unique across venues, short (lists carry one per outcome). */
export function externalId(q: Question, l: Listing, i: number): string {
  return `${l.venue.id}:${q.key}:${i}`;
}

export function listingState(seedKey: number, q: Question, l: Listing, t: number): MarketState {
  const probs = listingProbabilities(seedKey, q, l, t);
  const spread = Math.min(12, Math.max(l.venue.id === 'kalshi' ? 1 : 0.4, Math.round((1 + 300 / Math.sqrt(l.liquidity)) * 10) / 10));
  const open = t < q.endAt;
  const outcomes: OutcomeQuote[] = l.outcomes.map((name, i) => {
    const p = probs[i]!;
    return {
      externalMarketId: externalId(q, l, i),
      name,
      probability: p,
      bid: open ? Number(Math.max(0, p - spread / 2).toFixed(1)) : null,
      ask: open ? Number(Math.min(100, p + spread / 2).toFixed(1)) : null,
    };
  });
  const settleAt = q.endAt + l.settleDelayMs;
  let resolution: MarketResolution | null = null;
  const winner = listingWinner(q, l);
  // A price question resolves once the price at its end is known (the market has passed that minute).
  if (t >= settleAt && (!q.threshold || q.threshold.settled)) {
    resolution = {
      state: winner === null ? 'voided' : 'resolved',
      winnerExternalMarketId: winner === null ? null : externalId(q, l, winner),
      resolvedAtMs: settleAt,
      verified: l.resolvedAtVerified,
      basis: 'source',
    };
  }
  const leadAt = settleAt - DAY_MS;
  return {
    source: l.venue.id,
    slug: l.slug,
    marketId: `${l.venue.id}-${q.key}`,
    title: l.title,
    description: q.description,
    category: q.category,
    kind: q.kind,
    outcomes,
    volume: Math.round(cumulativeVolume(q, l, t)),
    volume24h: Math.round(cumulativeVolume(q, l, t) - cumulativeVolume(q, l, t - DAY_MS)),
    liquidity: open ? Math.round(l.liquidity * (1 + 0.15 * Math.sin(t / (7 * HOUR_MS) + (hashString(l.slug) % 7)))) : 0,
    startAtMs: q.openAt,
    endAtMs: q.endAt,
    status: open ? 'open' : 'closed',
    closedAtMs: open ? null : q.endAt,
    resolution,
    rules: q.rules,
    settlementSource: q.settlementSource,
    coinIds: q.coinIds,
    topics: q.topics,
    finalProbabilities: resolution ? listingProbabilities(seedKey, q, l, q.endAt - 60_000) : null,
    leadProbabilities: resolution && leadAt >= q.openAt ? listingProbabilities(seedKey, q, l, leadAt) : null,
  };
}

const TRADERS = ['tidewatcher', 'quietfund', 'oddsmith', 'northstar_cap', 'mesa_flow', null, null, null];
export const WHALE_MIN_USD = 10_000;

/** Large prints of a listing with tradedAt in (fromMs, toMs]: at most one per venue hour. */
export function listingWhales(seedKey: number, q: Question, l: Listing, fromMs: number, toMs: number): WhalePrint[] {
  if (l.venue.kind !== 'market') return [];
  const out: WhalePrint[] = [];
  const lk = combine32(listingKey(seedKey, q, l), 0x5eed);
  const chance = 0.01 + Math.min(0.04, l.volumeRatePerHour / 50_000);
  const start = Math.max(Math.floor(fromMs / HOUR_MS), Math.floor(q.openAt / HOUR_MS));
  const end = Math.floor(Math.min(toMs, q.endAt) / HOUR_MS);
  for (let hour = start; hour <= end; hour += 1) {
    const h = drawHash(lk, hour);
    if (hashToUnit(h) >= chance) continue;
    const tradedAt = hour * HOUR_MS + Math.floor(hashToUnit(drawHash(lk ^ 0x11, hour)) * HOUR_MS);
    if (tradedAt <= fromMs || tradedAt > toMs || tradedAt < q.openAt || tradedAt >= q.endAt) continue;
    const now = listingProbabilities(seedKey, q, l, tradedAt);
    const later = listingProbabilities(seedKey, q, l, tradedAt + 30 * 60_000);
    let pick = 0;
    let best = -Infinity;
    later.forEach((p, i) => {
      if (p - now[i]! > best) {
        best = p - now[i]!;
        pick = i;
      }
    });
    const size = WHALE_MIN_USD * Math.exp(Math.abs(hashToNormal(drawHash(lk ^ 0x22, hour))) * 0.9);
    const walletHash = drawHash(lk ^ 0x33, Math.floor(hashToUnit(drawHash(lk ^ 0x44, hour)) * 40));
    const wallet = l.venue.wallets ? `0x${[0, 1, 2, 3, 4].map((k) => drawHash(walletHash, k).toString(16).padStart(8, '0')).join('')}` : null;
    out.push({
      id: `${l.venue.id}:${l.slug}:${hour}`,
      source: l.venue.id,
      slug: l.slug,
      title: l.title,
      wallet,
      traderName: l.venue.wallets ? TRADERS[walletHash % TRADERS.length]! : null,
      side: 'buy',
      outcome: l.outcomes[pick]!,
      usdValue: Math.round(size),
      price: Number((now[pick]! / 100).toFixed(3)),
      tradedAtMs: tradedAt,
      evidenceType: l.venue.wallets ? 'onchain_fill' : 'venue_trade_print',
      evidenceRef: l.venue.wallets ? `sim-tx-${h.toString(16)}` : `sim-print-${h.toString(16)}`,
      evidenceUrl: null,
    });
  }
  return out;
}
