import { afterAll, expect, it } from 'vitest';
import { freshDatabase, type TestDatabase } from '../support/db.js';
import { startSmallMarket } from '../support/small-market.js';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const MIN = 60_000;
let db: TestDatabase;
afterAll(async () => db?.drop());

// A resting order's matcher asks what traded since the order rested. After a gap of over an
// hour that window reaches the 5-minute bars; a bar that began before the order must not count.
it('answers from 5-minute bars that begin inside the window only (no prices from before it)', async () => {
  db = await freshDatabase();
  const sim = await startSmallMarket(db.database.db, T0);
  for (let ms = T0; ms <= T0 + 70 * MIN; ms += 10_000) sim.market.advanceTo(ms);
  const now = T0 + 70 * MIN;
  const fiveMinutes = 5 * MIN;
  for (let k = 1; k < 20; k += 1) {
    const from = T0 + k * MIN; // one minute into a 5-minute bar, or on its start
    const next = Math.ceil(from / fiveMinutes) * fiveMinutes;
    expect(sim.market.priceRange('1', from, now), `from +${k} min`).toEqual(sim.market.priceRange('1', next, now));
  }
});
