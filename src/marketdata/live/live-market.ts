/**
 * The live market: polls CoinGecko for every mapped coin and alternative.me for Fear &
 * Greed, and feeds a SampleMarket. A poll never throws: a failing or slow source is
 * logged, the last good figures stay, their asOfMs stops advancing (freshness turns
 * stale after 120 s) and the next poll tries again.
 */
import { guardPrice, type PriceGuardState } from '../../domain/price-guard.js';
import type { Clock } from '../../util/clock.js';
import type { Coin } from '../coins.js';
import type { AlternativeMeClient } from './alternative-me.js';
import { SourceError } from './http-json.js';
import { MARKETS_PAGE_SIZE, mapCoinGeckoIds, type CoinGeckoClient, type CoinGeckoMarketRow } from './coingecko.js';
import type { LiveSampleFile } from './sample-file.js';
import { SampleMarket, type QuoteInput } from './sample-market.js';

export const LIVE_SOURCE = 'live:coingecko';
const FEAR_GREED_EVERY_MS = 10 * 60_000;
const MAX_FEAR_GREED_AGE_MS = 2 * 86_400_000;
const FIAT_EVERY_MS = 30 * 60_000;
const COMPACT_EVERY_MS = 6 * 3_600_000;
/** A back-fill that left coins without history is tried again after this long (the public API allows a few calls a minute). */
const BACKFILL_RETRY_MS = 30 * 60_000;
/** A row the source last updated longer ago than this is an old cache answer, not a price now. */
export const MAX_ROW_AGE_MS = 10 * 60_000;
/** Coins left unmapped (no usable row on the mapping pages) are looked for again this often. */
export const REMAP_EVERY_MS = 3_600_000;

export interface LiveMarketOptions {
  coins: readonly Coin[];
  prices: CoinGeckoClient;
  fearGreed: AlternativeMeClient;
  clock: Clock;
  /** Time between the end of one poll and the start of the next. */
  pollMs: number;
  /** Pages of 250 coins by market cap read once to map CoinGecko ids to ours. */
  mappingPages?: number;
  /** How many coins (by rank) get their history back-filled from the source after a cold start. */
  backfillCoins?: number;
  /** Pause between back-fill requests (the public API allows a few calls a minute). */
  backfillGapMs?: number;
  sleep?: (ms: number) => Promise<void>;
  file?: LiveSampleFile | null;
  log?: (level: 'info' | 'warn', message: string) => void;
  fiatSeed?: string;
}

export interface PollResult {
  ok: boolean;
  coins: number;
  errors: string[];
}

export class LiveMarket {
  readonly market: SampleMarket;
  /** CoinGecko id → our coinId. */
  private mapping = new Map<string, string>();
  private lastMappedMs = Number.NEGATIVE_INFINITY;
  /** CoinGecko id → the last_updated of the row last taken. */
  private readonly lastUpdated = new Map<string, number>();
  /** Our coinId → the price guard's state (src/domain/price-guard.ts). */
  private readonly guards = new Map<string, PriceGuardState>();
  private lastFearGreedMs = Number.NEGATIVE_INFINITY;
  private lastFiatMs = Number.NEGATIVE_INFINITY;
  private lastCompactMs: number;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private backfill: Promise<void> | null = null;
  /** When a back-fill that left coins without history runs again (null: none due). */
  private backfillRetryAtMs: number | null = null;
  readonly status = { polls: 0, failedPolls: 0, lastOkMs: null as number | null, lastError: null as string | null };

  constructor(private readonly options: LiveMarketOptions) {
    this.market = new SampleMarket(options.coins, { source: LIVE_SOURCE, clock: options.clock, fiatSeed: options.fiatSeed });
    this.lastCompactMs = options.clock.now();
  }

  private log(level: 'info' | 'warn', message: string): void {
    this.options.log?.(level, message);
  }

  get mappedCoins(): number {
    return this.mapping.size;
  }

  /** Restores stored samples (fast, local) and rewrites the file compactly. Network comes later, in poll(). */
  async restore(say: (line: string) => void = () => undefined): Promise<number> {
    const file = this.options.file;
    if (!file) return 0;
    const snapshots = await file.restoreInto(this.market, say);
    this.market.thin(this.options.clock.now());
    if (snapshots > 0) await file.compact(this.market, this.options.clock.now());
    return snapshots;
  }

  /** One round: map ids if not yet done, then prices, and Fear & Greed and fiat rates when due. */
  async poll(): Promise<PollResult> {
    const errors: string[] = [];
    const nowMs = this.options.clock.now();
    const quotes: Record<string, QuoteInput> = {};
    try {
      // a coin whose row had no price on the mapping pages was never asked for again until a restart
      const remap = this.mapping.size < this.options.coins.length && nowMs - this.lastMappedMs >= REMAP_EVERY_MS;
      if (this.mapping.size === 0 || remap) await this.mapIds(quotes);
      else await this.fetchQuotes(quotes, errors);
    } catch (error) {
      errors.push((error as Error).message);
    }
    let fearGreed = null;
    if (nowMs - this.lastFearGreedMs >= FEAR_GREED_EVERY_MS) {
      try {
        const reading = await this.options.fearGreed.latest();
        // the index is daily: one published days ago is an old cache answer, not today's mood
        if (reading.asOfMs !== null && nowMs - reading.asOfMs > MAX_FEAR_GREED_AGE_MS) throw new Error(`index published ${new Date(reading.asOfMs).toISOString()}, too old`);
        fearGreed = reading.fearGreed;
        this.lastFearGreedMs = nowMs;
      } catch (error) {
        errors.push(`fear & greed: ${(error as Error).message}`);
      }
    }
    let fiat = null;
    if (nowMs - this.lastFiatMs >= FIAT_EVERY_MS) {
      try {
        fiat = await this.options.prices.exchangeRates();
        this.lastFiatMs = nowMs;
      } catch (error) {
        errors.push(`fiat rates: ${(error as Error).message}`);
      }
    }
    const coins = Object.keys(quotes).length;
    // Stamped when the poll started: the prices are at least that recent.
    const snapshot = { tMs: nowMs, quotes, fearGreed, fiat };
    if (coins > 0 || fearGreed || fiat) {
      this.market.ingest(snapshot);
      await this.persist(snapshot, nowMs, errors);
    }
    this.status.polls += 1;
    if (coins > 0) this.status.lastOkMs = nowMs;
    if (errors.length > 0 || coins === 0) {
      this.status.failedPolls += coins === 0 ? 1 : 0;
      this.status.lastError = errors.join('; ') || 'no prices';
      this.log('warn', `live market: ${coins === 0 ? 'poll failed, keeping the last prices' : 'poll partly failed'}: ${this.status.lastError}`);
    }
    const backfillDue = this.backfill === null || (this.backfillRetryAtMs !== null && nowMs >= this.backfillRetryAtMs);
    if (this.mapping.size > 0 && backfillDue && (this.options.backfillCoins ?? 0) > 0) {
      this.backfillRetryAtMs = null;
      this.backfill = this.backfillHistory();
    }
    return { ok: errors.length === 0 && coins > 0, coins, errors };
  }

  private async mapIds(quotes: Record<string, QuoteInput>): Promise<void> {
    const pages = this.options.mappingPages ?? 4;
    this.lastMappedMs = this.options.clock.now(); // a failed pass waits its hour too
    const rows = [];
    for (let page = 1; page <= pages; page += 1) rows.push(...(await this.options.prices.marketsPage(page)));
    const mapping = mapCoinGeckoIds(this.options.coins, rows);
    if (mapping.size === 0 && this.mapping.size === 0) throw new Error('no CoinGecko coin matched the coin universe');
    // a coin mapped before keeps its id when its row is missing from this pass
    const mapped = new Set(mapping.values());
    for (const [geckoId, coinId] of this.mapping) if (!mapped.has(coinId)) mapping.set(geckoId, coinId);
    this.mapping = mapping;
    for (const row of rows) this.take(row, quotes, this.options.clock.now());
    this.log('info', `live market: mapped ${mapping.size} of ${this.options.coins.length} coins to CoinGecko ids`);
  }

  private async fetchQuotes(quotes: Record<string, QuoteInput>, errors: string[]): Promise<void> {
    const ids = [...this.mapping.keys()];
    for (let k = 0; k < ids.length; k += MARKETS_PAGE_SIZE) {
      try {
        for (const row of await this.options.prices.markets(ids.slice(k, k + MARKETS_PAGE_SIZE))) this.take(row, quotes, this.options.clock.now());
      } catch (error) {
        errors.push((error as Error).message); // the other chunks still count
      }
    }
  }

  /**
   * A row counts when the source refreshed it since the last poll (its last_updated moved on,
   * and is recent) and its price is plausible (a large move waits for a second poll): a coin
   * the source stopped updating, or whose print is held, keeps its old asOf and turns stale
   * like a dead source.
   */
  private take(row: CoinGeckoMarketRow, quotes: Record<string, QuoteInput>, nowMs: number): void {
    const coinId = this.mapping.get(row.id);
    if (coinId === undefined) return;
    if (row.lastUpdatedMs !== null) {
      const previous = this.lastUpdated.get(row.id);
      // not moved, gone back (another cache edge answered), or old: not a price now
      if (previous !== undefined && row.lastUpdatedMs <= previous) return;
      if (row.lastUpdatedMs < nowMs - MAX_ROW_AGE_MS) return;
      // seen, taken or not: the same row served again is not a second poll confirming a held print
      this.lastUpdated.set(row.id, row.lastUpdatedMs);
    }
    const decision = guardPrice(this.guards.get(coinId) ?? { last: this.market.price(coinId)?.priceUsd ?? null, held: null }, row.quote.priceUsd);
    this.guards.set(coinId, decision.state);
    if (!decision.take) {
      this.log('warn', `live market: ${row.id} at ${row.quote.priceUsd} USD not taken (${decision.reason === 'implausible' ? 'implausible' : `a move from ${decision.state.last} waits for the next poll to confirm it`})`);
      return;
    }
    quotes[coinId] = row.quote;
  }

  private async persist(snapshot: Parameters<LiveSampleFile['append']>[0], nowMs: number, errors: string[]): Promise<void> {
    const file = this.options.file;
    if (!file) return;
    try {
      if (nowMs - this.lastCompactMs >= COMPACT_EVERY_MS) {
        this.market.thin(nowMs);
        await file.compact(this.market, nowMs);
        this.lastCompactMs = nowMs;
      } else await file.append(snapshot);
    } catch (error) {
      errors.push(`storing samples: ${(error as Error).message}`);
    }
  }

  /** Top coins without a day of history get the source's 90 days (hourly) and last day (5-minute). */
  private async backfillHistory(): Promise<void> {
    const sleep = this.options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref()));
    const dayAgoMs = this.options.clock.now() - 86_400_000;
    const wanted = new Set(this.options.coins.slice().sort((a, b) => a.rank - b.rank).slice(0, this.options.backfillCoins).map((c) => c.coinId));
    const targets = [...this.mapping].filter(([, coinId]) => wanted.has(coinId) && !this.hasHistoryBefore(coinId, dayAgoMs));
    let done = 0;
    const failed: string[] = [];
    for (const [geckoId, coinId] of targets) {
      if (this.stopped) return;
      try {
        for (const days of [90, 1]) {
          this.market.addHistory(coinId, await this.options.prices.marketChart(geckoId, days));
          await sleep(this.options.backfillGapMs ?? 2500);
        }
        done += 1;
        if (done % 5 === 0) this.log('info', `live market: back-filling history… ${done}/${targets.length} coins`);
      } catch (error) {
        failed.push(`${geckoId}: ${(error as Error).message}`);
        // rate-limited: the rest waits for the next attempt instead of asking back to back
        if (error instanceof SourceError && error.status === 429) break;
        await sleep(this.options.backfillGapMs ?? 2500);
      }
    }
    if (failed.length > 0) this.log('warn', `live market: history back-fill failed for ${failed.length} coin(s), asked again in 30 min (${failed.slice(0, 3).join('; ')})`);
    if (targets.length > 0) this.log('info', `live market: back-filled history for ${done} of ${targets.length} coins`);
    // coins whose history the source refused (a 429, an outage) are asked again later, not never
    if (done < targets.length && !this.stopped) this.backfillRetryAtMs = this.options.clock.now() + BACKFILL_RETRY_MS;
    if (done > 0 && this.options.file) {
      // The appended poll lines do not hold the history: store it now, not at the next compaction.
      const nowMs = this.options.clock.now();
      await this.options.file.compact(this.market, nowMs).catch((error: unknown) => this.log('warn', `live market: storing samples failed: ${(error as Error).message}`));
      this.lastCompactMs = nowMs;
    }
  }

  private hasHistoryBefore(coinId: string, ms: number): boolean {
    const candles = this.market.candles(coinId, '3M');
    return candles.length > 0 && candles[0]!.t * 1000 <= ms;
  }

  /** Waits for the history back-fill started by the first successful poll (tests, shutdown). */
  async backfillDone(): Promise<void> {
    await this.backfill;
  }

  /** Polls now and then every pollMs after each poll ends, until stop(). */
  start(): void {
    const loop = async () => {
      if (this.stopped) return;
      await this.poll().catch((error: unknown) => this.log('warn', `live market: poll crashed: ${(error as Error).message}`));
      if (!this.stopped) {
        this.timer = setTimeout(() => void loop(), this.options.pollMs);
        this.timer.unref();
      }
    };
    void loop();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
