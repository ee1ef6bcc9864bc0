/**
 * Times the simulated market's start-up back-fill: 90 days of 1-minute steps for the
 * whole coin universe, building every candle range. Run: npx tsx bench/sim-backfill.ts [days]
 */
import { loadCoins } from '../src/marketdata/coins.js';
import { backfill, minuteIndexOf, seriesCandles } from '../src/marketdata/sim/index.js';

const days = Number(process.argv[2] ?? 90);
const coins = loadCoins();
const toMinute = minuteIndexOf(Date.UTC(2026, 7, 22, 12, 0, 0));
const fromMinute = toMinute - days * 1440;

const started = performance.now();
const result = backfill(coins, 'bench', fromMinute, toMinute);
const elapsedMs = performance.now() - started;

const btc = result.snapshot.coins[result.universe.btcIndex]!;
const counts = Object.fromEntries(Object.entries(result.series).map(([range, s]) => [range, seriesCandles(s, 0).length]));
console.log(
  JSON.stringify({
    days,
    coins: coins.length,
    coinMinutes: coins.length * (toMinute - fromMinute),
    elapsedMs: Math.round(elapsedMs),
    nsPerCoinMinute: Math.round((elapsedMs * 1e6) / (coins.length * (toMinute - fromMinute))),
    btcCandles: counts,
    btc: { price: btc.priceUsd, change24h: btc.change24h, change7d: btc.change7d },
    fearGreed: result.snapshot.fearGreed,
    heapMb: Math.round(process.memoryUsage().heapUsed / 1e6),
  }),
);
