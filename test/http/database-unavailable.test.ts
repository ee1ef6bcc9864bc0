import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../src/storage/sql-state.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';
import { freshDatabase } from '../support/db.js';

/** While `failing`, every statement fails the way the pg driver does when the server is gone. */
let failing = false;
const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', errno: -111, syscall: 'connect' });

let t: TestApp;
beforeAll(async () => {
  const testDb = await freshDatabase({
    onQuery: (text) => {
      if (failing && !/ledger_events/.test(text)) throw refused();
    },
  });
  t = await createTestApp({ testDb });
  t.market.set('1', 50_000, t.clock.now());
});
afterAll(async () => {
  failing = false;
  await t.close();
});

describe('a database that cannot be reached', () => {
  it('answers 503 database_unavailable with Retry-After (a retry, not a bug), and serves again once it is back', async () => {
    const { key } = await t.newKey();
    const body = { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.001, idempotencyKey: 'db-down' };
    expect((await t.app.inject({ url: '/api/agent/me', headers: bearer(key) })).statusCode).toBe(200); // key cached
    failing = true;
    // any route that reads the database answers so, and publishes it (the response check holds the
    // status and its Retry-After against the document: account reads and keyless reads declared no 503)
    for (const url of ['/api/agent/portfolio', '/api/arena/decisions?limit=1', '/api/competitions']) {
      const read = await t.app.inject({ url, headers: bearer(key) });
      expect([read.statusCode, read.json().error, read.headers['retry-after']], url).toEqual([503, 'database_unavailable', '5']);
    }
    const res = await t.app.inject({ method: 'POST', url: '/api/agent/spot/order', headers: bearer(key), payload: body });
    failing = false;
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toEqual({ error: 'database_unavailable', message: expect.stringContaining('retry') });
    const retried = await t.app.inject({ method: 'POST', url: '/api/agent/spot/order', headers: bearer(key), payload: body });
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json().idempotentReplay).toBeUndefined(); // nothing was written the first time
  });

  it('tells unreachable-database errors from statement errors', () => {
    expect(isDatabaseUnavailable(refused())).toBe(true);
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('wrapped'), { cause: Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }) }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('too many clients'), { code: '53300' }))).toBe(true);
    // disk full (PGlite answered 500 internal_error to every write while its disk was full — ops audit)
    expect(isDatabaseUnavailable(Object.assign(new Error('could not extend file: No space left on device'), { code: '53100' }))).toBe(true);
    // ALTER DATABASE … ALLOW_CONNECTIONS false, a rotated password, a dropped database
    expect(isDatabaseUnavailable(Object.assign(new Error('database "paper" is not currently accepting connections'), { code: '55000' }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('password authentication failed for user "paper"'), { code: '28P01' }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('database "paper" does not exist'), { code: '3D000' }))).toBe(true);
    // other object-state errors are the statement's
    expect(isDatabaseUnavailable(Object.assign(new Error('currval of sequence "s" is not yet defined in this session'), { code: '55000' }))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('syntax error'), { code: '42601' }))).toBe(false);
    expect(isDatabaseUnavailable(new Error('division by zero'))).toBe(false);
  });
});
