import type { HouseCoinView, HouseFuturesOrder, HouseFuturesStrategy } from './types.js';

/**
 * Futures trend: on the largest coins, go long a strong day that the last hour confirms, or
 * short a weak one; leave when the hour turns against the position. Stop-loss and
 * take-profit are set at entry, so the futures risk job closes them between steps.
 */
export const FUTURES_TREND = {
  maxRank: 10,
  maxPositions: 2,
  leverage: 3,
  /** Margin per new position, as a share of available cash. */
  marginCashShare: 0.15,
  minMarginMusd: 10,
  entry24hPct: 3,
  entry1hPct: 0.3,
  exit1hPct: 0.5,
  stopLossPct: 2,
  takeProfitPct: 4,
} as const;

const sig6 = (x: number) => Number(x.toPrecision(6));

export const futuresTrend: HouseFuturesStrategy = (market, book) => {
  const byId = new Map(market.map((c) => [c.coinId, c]));
  const closes: HouseFuturesOrder[] = [];
  for (const p of book.positions) {
    const h = byId.get(p.coinId)?.change1h;
    if (h === null || h === undefined) continue;
    if ((p.side === 'long' && h <= -FUTURES_TREND.exit1hPct) || (p.side === 'short' && h >= FUTURES_TREND.exit1hPct)) {
      closes.push({ kind: 'close', positionId: p.positionId, coinId: p.coinId, reason: 'reversal' });
    }
  }
  const held = new Set(book.positions.map((p) => p.coinId));
  const ranked = market
    .filter((c, i): c is HouseCoinView & { change1h: number; change24h: number } => i < FUTURES_TREND.maxRank && c.change1h !== null && c.change24h !== null)
    .filter((c) => !held.has(c.coinId) && Math.abs(c.change24h) >= FUTURES_TREND.entry24hPct && Math.abs(c.change1h) >= FUTURES_TREND.entry1hPct)
    .filter((c) => Math.sign(c.change24h) === Math.sign(c.change1h))
    .sort((a, b) => Math.abs(b.change24h) - Math.abs(a.change24h) || (a.coinId < b.coinId ? -1 : 1));
  const opens: HouseFuturesOrder[] = [];
  let cash = book.cashUsd;
  let slots = FUTURES_TREND.maxPositions - (book.positions.length - closes.length);
  for (const c of ranked) {
    if (slots <= 0) break;
    const marginMusd = Math.floor(cash * FUTURES_TREND.marginCashShare);
    if (marginMusd < FUTURES_TREND.minMarginMusd) break;
    const long = c.change24h > 0;
    const sl = FUTURES_TREND.stopLossPct / 100;
    const tp = FUTURES_TREND.takeProfitPct / 100;
    opens.push({
      kind: 'open',
      coinId: c.coinId,
      side: long ? 'long' : 'short',
      leverage: FUTURES_TREND.leverage,
      marginMusd,
      stopLossPrice: sig6(c.priceUsd * (long ? 1 - sl : 1 + sl)),
      takeProfitPrice: sig6(c.priceUsd * (long ? 1 + tp : 1 - tp)),
      reason: long ? 'trend_up' : 'trend_down',
    });
    cash -= marginMusd * 1.01; // margin plus the open fee
    slots -= 1;
  }
  return [...closes, ...opens];
};
