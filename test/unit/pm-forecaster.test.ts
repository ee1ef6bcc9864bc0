import { describe, expect, it } from 'vitest';
import { forecastYes, pmForecaster, PM_FORECASTER, type PmMarketView } from '../../src/arena/house/pm-forecaster.js';

const NOW = Date.UTC(2026, 10, 23, 9, 0, 0);
const window = { nowMs: NOW, minTimeLeftMs: 60_000, horizonMs: 20 * 60_000 };
const market = (over: Partial<PmMarketView> = {}): PmMarketView => ({
  source: 'polymarket',
  slug: 'btc-above',
  title: 'Will Bitcoin be above $90,000?',
  yesOutcomeId: 'polymarket:f1:0',
  yesPoints: 50,
  consensusYesPoints: 60,
  consensusVenues: 2,
  pastYesPoints: 50,
  endAtMs: NOW + 5 * 60_000,
  ...over,
});
const book = { cashMusd: 50_000, held: new Set<string>() };

describe('PM house forecaster (pure)', () => {
  it('anchors on the other venues, adds half the recent log-odds drift, and falls back to its own price', () => {
    expect(forecastYes(market())).toMatchObject({ anchor: 'consensus', forecastYesPoints: 60, driftLogOdds: 0 });
    const rising = forecastYes(market({ yesPoints: 60, pastYesPoints: 50 }));
    expect(rising.forecastYesPoints).toBeGreaterThan(60); // the move continues a little
    const alone = forecastYes(market({ consensusYesPoints: null, consensusVenues: 0, yesPoints: 40, pastYesPoints: 40 }));
    expect(alone).toMatchObject({ anchor: 'own_price', forecastYesPoints: 40 });
  });

  it('takes the side its forecast favours, sized from cash, with forecast and thesis', () => {
    const [yes] = pmForecaster([market()], book, window);
    expect(yes).toMatchObject({ side: 'yes', forecastProbability: 60, edgePoints: 10, stakeMusd: 500, outcomeExternalMarketId: 'polymarket:f1:0' });
    expect(yes!.thesis).toContain('Yes at 50 vs own 60');
    const [no] = pmForecaster([market({ consensusYesPoints: 30 })], book, window);
    expect(no).toMatchObject({ side: 'no', forecastProbability: 70 });
  });

  it('skips small edges, decided prices, held markets and markets outside the horizon; caps opens per step', () => {
    expect(pmForecaster([market({ consensusYesPoints: 51 })], book, window)).toEqual([]);
    expect(pmForecaster([market({ yesPoints: 97, consensusYesPoints: 80 })], book, window)).toEqual([]);
    expect(pmForecaster([market()], { ...book, held: new Set(['polymarket/btc-above']) }, window)).toEqual([]);
    expect(pmForecaster([market({ endAtMs: NOW + 30_000 })], book, window)).toEqual([]);
    expect(pmForecaster([market({ endAtMs: NOW + 60 * 60_000 })], book, window)).toEqual([]);
    const many = [1, 2, 3, 4].map((i) => market({ slug: `m${i}`, consensusYesPoints: 60 + i }));
    const orders = pmForecaster(many, book, window);
    expect(orders.map((o) => o.slug)).toEqual(['m4', 'm3']);
    expect(orders).toHaveLength(PM_FORECASTER.maxOpensPerStep);
    expect(pmForecaster(many, { cashMusd: 500, held: new Set() }, window)).toEqual([]); // 1 % of 500 < minimum stake
  });

  it('passes over an entry the venue would refuse (fill at certainty) for the next one, without spending a slot', () => {
    const many = [1, 2, 3].map((i) => market({ slug: `m${i}`, consensusYesPoints: 60 + i }));
    const asked: string[] = [];
    const orders = pmForecaster(many, book, window, ({ slug, side, stakeMusd }) => {
      asked.push(`${slug}:${side}:${stakeMusd}`);
      return slug !== 'm3';
    });
    expect(orders.map((o) => o.slug)).toEqual(['m2', 'm1']);
    expect(asked).toEqual(['m3:yes:500', 'm2:yes:500', 'm1:yes:495']); // m3 took no cash either
  });

  it('decides the same on the same inputs (a retried step)', () => {
    const views = [market(), market({ slug: 'x', consensusYesPoints: 20, pastYesPoints: 55 })];
    expect(pmForecaster(views, book, window)).toEqual(pmForecaster(views, book, window));
  });
});
