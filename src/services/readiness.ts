/**
 * Readiness means data (`GET /readyz`): the database answers, the market has prices, and the
 * prediction-market lists and the native venues' price history are served. A native venue whose
 * last fetch failed is not waited for (live mode with Kalshi unreachable would otherwise never
 * be ready; its history arrives when it answers again). Data once there stays, so after the
 * first full pass only the database is asked again.
 */
import type { MarketReads } from '../marketdata/reads.js';
import { pmReadModel } from '../pm/read-model.js';
import { VENUES } from '../pm/venues.js';
import type { Database } from '../storage/db.js';
import { ping } from '../storage/db.js';
import { pmDataPresence } from '../storage/pm-repo.js';
import type { Clock } from '../util/clock.js';

export interface Readiness {
  ready: boolean;
  /** What is still missing (empty when ready). */
  waitingFor: string[];
}

const NATIVE_HISTORY = VENUES.filter((v) => v.nativeHistory).map((v) => v.id);

export function readinessProbe(deps: {
  database: Database;
  clock: Clock;
  marketReads: MarketReads | null;
  /** True while the database refuses writes as such (a full disk, a read-only volume). */
  writesRefused?: () => Promise<boolean>;
}): () => Promise<Readiness> {
  let dataSeen = false;
  return async () => {
    await ping(deps.database.db); // throws: the caller answers 503
    // a database that answers reads but refuses writes (a full disk, a read-only volume): every
    // trade answers 503, so a load balancer should send them elsewhere (it stayed ready)
    if (await deps.writesRefused?.()) return { ready: false, waitingFor: ['database_writes'] };
    if (dataSeen) return { ready: true, waitingFor: [] };
    const waitingFor: string[] = [];
    const reads = deps.marketReads;
    if (reads && !reads.coins().some((c) => reads.quote(c.coinId) !== null)) waitingFor.push('market_prices');
    const presence = await pmDataPresence(deps.database.db, NATIVE_HISTORY);
    // The lists answer from the read model's snapshot: it must hold the open markets too.
    const listed = presence.openMarkets && (await pmReadModel(deps.database, deps.clock).snapshot()).rows.some((r) => r.status === 'open');
    if (!listed) waitingFor.push('pm_lists');
    for (const source of NATIVE_HISTORY) {
      const down = presence.failingSources.includes(source);
      if (!down && !presence.historySources.includes(source)) waitingFor.push(`pm_price_history:${source}`);
    }
    dataSeen = waitingFor.length === 0;
    return { ready: dataSeen, waitingFor };
  };
}
