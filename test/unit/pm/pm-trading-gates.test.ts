import { describe, expect, it } from 'vitest';
import { floorBlockReasons, pmQuality, qualityGateReasons, settlePosition, shapeBlockReasons, type GateMarket } from '../../../src/domain/pm/gates.js';
import { Decimal } from '../../../src/domain/money.js';

const NOW = Date.parse('2026-01-01T12:00:00Z');
const market = (over: Partial<GateMarket> = {}): GateMarket => ({
  supportsTrading: true,
  kind: 'binary',
  status: 'open',
  endAt: new Date(NOW + 3_600_000).toISOString(),
  outcomes: [
    { externalMarketId: 'y', name: 'Yes', probability: 40, bid: 39, ask: 41 },
    { externalMarketId: 'n', name: 'No', probability: 60, bid: 59, ask: 61 },
  ],
  lastCaptureAt: new Date(NOW - 60_000).toISOString(),
  lastIngestAt: new Date(NOW - 10_000).toISOString(),
  freshness: { asOf: new Date(NOW - 60_000).toISOString(), ageMinutes: 1, status: 'fresh', basis: 'latest_snapshot' },
  resolution: null,
  ...over,
});

describe('PM gates', () => {
  it('passes a fresh open binary market and names each shape problem', () => {
    expect(shapeBlockReasons(market(), market().outcomes[0]!, NOW)).toEqual([]);
    expect(shapeBlockReasons(market({ endAt: null }), market().outcomes[0]!, NOW)).toEqual([]);
    // listed open but past its end time (the status catches up with the next ingest): not open
    expect(shapeBlockReasons(market({ endAt: new Date(NOW).toISOString() }), market().outcomes[0]!, NOW)).toEqual(['event_not_open']);
    expect(shapeBlockReasons(market({ supportsTrading: false, kind: 'multi', status: 'closed' }), { externalMarketId: 'y', name: 'Yes', probability: 100, bid: null, ask: null }, NOW)).toEqual([
      'venue_not_tradeable',
      'not_binary',
      'event_not_open',
      'outcome_unpriced',
    ]);
    expect(shapeBlockReasons(market({ resolution: { state: 'resolved', winnerExternalMarketId: 'y' } }), null, NOW)).toEqual(['event_settled']);
  });

  it('refuses a market whose last ingest is too old for the time it has left (a frozen quote minutes before the end)', () => {
    const at = (endInMs: number, ingestAgoMs: number) =>
      shapeBlockReasons(market({ endAt: new Date(NOW + endInMs).toISOString(), lastIngestAt: new Date(NOW - ingestAgoMs).toISOString() }), null, NOW);
    expect(at(5 * 60_000, 3 * 60_000)).toEqual(['price_stale_near_end']); // a flash market, ingest stopped 3 min ago
    expect(at(5 * 60_000, 90_000)).toEqual([]); // within the 2-minute floor
    expect(at(10 * 86_400_000, 3_600_000)).toEqual([]); // 10 days left: an hour-old ingest is a tenth of nothing
    expect(at(60 * 60_000, 7 * 60_000)).toEqual(['price_stale_near_end']); // an hour left: more than 6 min old
    expect(shapeBlockReasons(market({ lastIngestAt: null }), null, NOW)).toEqual([]);
  });

  it('quality: none without a capture, stale after 2 h, stored codes when not eligible', () => {
    expect(pmQuality(market({ lastCaptureAt: null }))).toBeNull();
    expect(qualityGateReasons(null, NOW)).toEqual(['quality_state_missing']);
    const q = pmQuality(market())!;
    expect(q).toMatchObject({ decisionEligible: true, blockReasons: [], policyVersion: 'pm-quality-2' });
    expect(qualityGateReasons(q, NOW)).toEqual([]);
    expect(qualityGateReasons(q, NOW + 2 * 3_600_000 + 1)).toEqual(['quality_state_stale']);
    const stale = pmQuality(market({ freshness: { asOf: null, ageMinutes: 200, status: 'stale' } }))!;
    expect(qualityGateReasons(stale, NOW)).toEqual(['stale_freshness']);
  });

  it('floor compares the chosen-side mid', () => {
    expect(floorBlockReasons(40, undefined)).toEqual([]);
    expect(floorBlockReasons(40, 40)).toEqual([]);
    expect(floorBlockReasons(40, 41)).toEqual(['entry_below_floor']);
    expect(floorBlockReasons(null, 10)).toEqual(['entry_price_unavailable']);
  });

  it('settles YES and NO on the backed outcome, and refunds a void', () => {
    const stake = new Decimal(100);
    const shares = new Decimal(240);
    expect(settlePosition('yes', 'y', 'y', stake, shares)).toEqual({ status: 'won', payout: shares, pnl: new Decimal(140) });
    expect(settlePosition('yes', 'y', 'n', stake, shares).status).toBe('lost');
    expect(settlePosition('no', 'y', 'n', stake, shares).status).toBe('won');
    expect(settlePosition('no', 'y', 'y', stake, shares)).toMatchObject({ status: 'lost', pnl: new Decimal(-100) });
    expect(settlePosition('no', 'y', null, stake, shares)).toMatchObject({ status: 'void_refunded', payout: stake });
  });
});
