/** Whale wallets (reference A8, A9): public large prints grouped by on-chain wallet. */
import type { WalletAggregate, WalletFill } from '../../storage/pm-research-repo.js';
import { venueById } from '../venues.js';

/** Venues whose prints carry a wallet address. */
export const WALLET_VENUES = ['polymarket', 'limitless', 'myriad'] as const;
export const WALLET_WINDOWS = { '7d': 7, '30d': 30 } as const;
export const WALLET_PATTERN = '^0x[0-9a-fA-F]{40}$';

const shortOf = (w: string) => `${w.slice(0, 6)}…${w.slice(-4)}`;

/** One row per wallet over all requested venues, largest notional first. */
export function walletRows(aggregates: WalletAggregate[]): Record<string, unknown>[] {
  const byWallet = new Map<string, WalletAggregate[]>();
  for (const a of aggregates) {
    const k = a.wallet.toLowerCase();
    byWallet.set(k, [...(byWallet.get(k) ?? []), a]);
  }
  return [...byWallet.values()]
    .map((rows) => ({
      wallet: rows[0]!.wallet,
      address: rows[0]!.wallet,
      traderName: rows.find((r) => r.traderName)?.traderName ?? null,
      venues: rows.map((r) => ({ source: r.source, name: venueById(r.source)?.name ?? r.source, tradeCount: r.tradeCount, totalUsd: r.totalUsd })),
      tradeCount: rows.reduce((s, r) => s + r.tradeCount, 0),
      totalUsd: Math.round(rows.reduce((s, r) => s + r.totalUsd, 0) * 100) / 100,
      maxUsd: Math.max(...rows.map((r) => r.maxUsd)),
      firstSeen: rows.map((r) => r.firstSeen).filter((v): v is string => v !== null).sort()[0] ?? null,
      lastSeen: rows.map((r) => r.lastSeen).filter((v): v is string => v !== null).sort().at(-1) ?? null,
    }))
    .sort((a, b) => b.totalUsd - a.totalUsd || a.wallet.localeCompare(b.wallet));
}

/** One wallet's 30-day profile on one venue: observed flow only, never holdings or PnL. */
export function walletProfile(source: string, wallet: string, traderName: string | null, fills: WalletFill[]): Record<string, unknown> {
  const sum = (xs: WalletFill[]) => Math.round(xs.reduce((s, f) => s + f.usdValue, 0) * 100) / 100;
  const buys = fills.filter((f) => f.side === 'buy');
  const days = new Map<string, WalletFill[]>();
  const events = new Map<string, WalletFill[]>();
  for (const f of fills) {
    const d = f.tradedAt.toISOString().slice(0, 10);
    days.set(d, [...(days.get(d) ?? []), f]);
    events.set(f.slug, [...(events.get(f.slug) ?? []), f]);
  }
  return {
    source,
    sourceName: venueById(source)?.name ?? source,
    sourceIcon: null,
    wallet,
    walletShort: shortOf(wallet),
    traderName,
    summary30d: {
      tradeCount: fills.length,
      totalUsd: sum(fills),
      buyUsd: sum(buys),
      sellUsd: Math.round((sum(fills) - sum(buys)) * 100) / 100,
      maxUsd: fills.length ? Math.max(...fills.map((f) => f.usdValue)) : 0,
      eventCount: events.size,
      basis: 'observed_large_prints',
    },
    rollup: {
      firstSeen: fills.at(-1)?.tradedAt.toISOString() ?? null,
      lastSeen: fills[0]?.tradedAt.toISOString() ?? null,
      activeDays: days.size,
    },
    daily: [...days.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([day, xs]) => ({ day, tradeCount: xs.length, totalUsd: sum(xs) })),
    topEvents30d: [...events.entries()]
      .map(([slug, xs]) => ({ slug, title: xs[0]!.title, tradeCount: xs.length, totalUsd: sum(xs) }))
      .sort((a, b) => b.totalUsd - a.totalUsd || a.slug.localeCompare(b.slug))
      .slice(0, 10),
    recentFills: fills.slice(0, 25).map((f) => ({
      side: f.side.toUpperCase(),
      slug: f.slug,
      title: f.title,
      outcome: f.outcome,
      price: f.price,
      usdValue: f.usdValue,
      tradedAt: f.tradedAt.toISOString(),
      evidenceRef: f.evidenceRef,
    })),
  };
}
