/**
 * The simulated news wire: headlines derived from the simulated market itself, so they agree
 * with the prices an agent sees. A coin's hourly move well beyond its usual hourly range
 * makes a price story; a prediction market about the coin that moved sharply in a day makes
 * a market story. Pure: same bars and markets → same stories.
 */
import type { Candle } from '../domain/candles.js';
import type { NewsCoin, NewsItem } from './types.js';

export const SIM_WIRE_NAME = 'Paper Arena simulated wire';
const HOUR_MS = 3_600_000;
/** One story per coin per this many hours at most (the largest move wins). */
const DEDUPE_HOURS = 6;
const MIN_MOVE_PCT = 1.5;

export interface CoinBars {
  coin: NewsCoin;
  /** oldest to newest, evenly spaced */
  bars: Candle[];
  barMs: number;
}

export interface MarketMove {
  coinId: string;
  venueName: string;
  title: string;
  outcome: string;
  probability: number;
  changePoints: number;
  atMs: number;
  key: string;
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
const price = (v: number) => (v >= 100 ? v.toLocaleString('en-US', { maximumFractionDigits: 0 }) : v >= 1 ? v.toFixed(2) : v.toPrecision(3));

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Price stories of one coin: hour-over-hour moves beyond 3× its median hourly move. */
export function priceStories({ coin, bars, barMs }: CoinBars, sinceMs: number, nowMs: number): NewsItem[] {
  const step = Math.max(1, Math.round(HOUR_MS / barMs));
  const moves: { atMs: number; pct: number; close: number }[] = [];
  for (let i = step; i < bars.length; i++) {
    const before = bars[i - step]!.c;
    const after = bars[i]!.c;
    if (before > 0) moves.push({ atMs: bars[i]!.t * 1000 + barMs, pct: ((after - before) / before) * 100, close: after });
  }
  const threshold = Math.max(MIN_MOVE_PCT, 3 * median(moves.map((m) => Math.abs(m.pct))));
  const picked: typeof moves = [];
  for (const m of moves) {
    if (Math.abs(m.pct) < threshold || m.atMs < sinceMs || m.atMs > nowMs) continue;
    const last = picked.at(-1);
    if (last && m.atMs - last.atMs < DEDUPE_HOURS * HOUR_MS) {
      if (Math.abs(m.pct) > Math.abs(last.pct)) picked[picked.length - 1] = m;
    } else picked.push(m);
  }
  return picked.map((m) => {
    const up = m.pct > 0;
    const strength = Math.abs(m.pct) / threshold;
    return {
      id: `sim-${coin.coinId}-${m.atMs}`,
      title: `${coin.name} (${coin.symbol}) ${up ? 'jumps' : 'slides'} ${Math.abs(m.pct).toFixed(1)}% in an hour to $${price(m.close)}`,
      source: SIM_WIRE_NAME,
      url: `/coins/${coin.coinId}`,
      publishedAtMs: m.atMs,
      category: 'price_move',
      sentiment: up ? 'bullish' : 'bearish',
      sentimentConfidence: Math.round(clamp(0.5 + strength / 8, 0.5, 0.95) * 100) / 100,
      importance: Math.round(clamp(3 + strength * 1.5, 0, 10)),
      coinIds: [coin.coinId],
      simulated: true,
    };
  });
}

/** Market stories: a coin's prediction market moved 10+ points in a day. */
export function marketStories(moves: MarketMove[], coins: NewsCoin[], sinceMs: number, nowMs: number): NewsItem[] {
  const byId = new Map(coins.map((c) => [c.coinId, c]));
  return moves
    .filter((m) => byId.has(m.coinId) && Math.abs(m.changePoints) >= 10 && m.atMs >= sinceMs && m.atMs <= nowMs)
    .map((m) => {
      const up = m.changePoints > 0;
      return {
        id: `sim-pm-${m.key}-${m.atMs}`,
        title: `${m.venueName} traders now give "${m.title}" ${m.probability.toFixed(0)}% for ${m.outcome} (${up ? '+' : ''}${m.changePoints.toFixed(0)} pts in 24 h)`,
        source: SIM_WIRE_NAME,
        url: `/markets/${m.key}`,
        publishedAtMs: m.atMs,
        category: 'prediction_market',
        sentiment: 'neutral',
        sentimentConfidence: 0.5,
        importance: Math.round(clamp(2 + Math.abs(m.changePoints) / 6, 0, 10)),
        coinIds: [m.coinId],
        simulated: true,
      } satisfies NewsItem;
    });
}
