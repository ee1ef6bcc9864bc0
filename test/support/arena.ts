import { Decimal } from '../../src/domain/money.js';
import { lockWallet } from '../../src/storage/books-repo.js';
import type { Db } from '../../src/storage/db.js';
import { insertClosedTrade, type Venue } from '../../src/storage/trades-repo.js';
import { createKey } from '../../src/services/keys.js';

/** A public (or private) agent key straight through the service layer. */
export async function agentKey(db: Db, name: string, options: { public?: boolean; model?: string } = {}): Promise<number> {
  const created = await createKey(db, {
    userId: 'arena-tester',
    scopes: ['read'],
    agentName: name,
    agentModel: options.model ?? null,
    public: options.public ?? true,
  });
  return created.keyId;
}

/** Writes closed trades the way a venue does (realized PnL null = a fill that decided nothing). */
export async function trade(db: Db, keyId: number, venue: Venue, pnl: number | null, atMs: number): Promise<void> {
  await db.transaction(async (tx) => {
    const wallet = await lockWallet(tx, keyId);
    await insertClosedTrade(tx, {
      keyId,
      walletId: wallet.id,
      venue,
      side: pnl === null ? 'buy' : 'sell',
      realizedPnl: pnl === null ? null : new Decimal(pnl),
      closedAtMs: atMs,
    });
  });
}

export async function trades(db: Db, keyId: number, venue: Venue, pnls: (number | null)[], atMs: number): Promise<void> {
  for (const pnl of pnls) await trade(db, keyId, venue, pnl, atMs);
}
