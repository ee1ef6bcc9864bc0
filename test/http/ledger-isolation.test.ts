import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countLedgerRows } from '../../src/storage/ledger-repo.js';
import { bearer, createTestApp, type TestApp } from '../support/app.js';

// Issue 12 item 1 on the real store: a row PostgreSQL refuses never stops other keys' rows.
const lines: string[] = [];
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ config: { logLevel: 'warn' }, logStream: { write: (line: string) => void lines.push(line) } });
});
afterAll(async () => t.close());

describe('ledger fault isolation on the real store', () => {
  it('drops a refused row once, with one warn line without its contents, and records every row of another key', async () => {
    const { key: first } = await t.newKey();
    const { key: second, keyId: secondId } = await t.newKey();
    // Poison: a row for a key that does not exist (foreign-key violation), with a marker in it.
    t.ctx.ledger.enqueue({
      id: '018f0000-0000-7000-8000-000000000001',
      keyId: 987_654,
      method: 'GET',
      endpoint: '/poison-marker',
      eventType: 'read',
      ledgerStatus: 'success',
      requestSummary: { body: 'poison-marker' },
      blockReasons: [],
      startedAt: new Date(t.clock.now()),
    });
    const quote = await t.app.inject({
      method: 'POST',
      url: '/api/agent/spot/quote',
      headers: bearer(first),
      payload: { coinId: '1', side: 'buy', quantity: 0.001, agentTrace: { runId: 'a\u0000b' } },
    });
    expect(quote.statusCode).toBe(400);
    const sent = 25;
    for (let i = 0; i < sent; i += 1) {
      const res = await t.app.inject({ url: '/api/agent/me', headers: bearer(second) });
      expect(res.statusCode).toBe(200);
    }
    await t.ctx.ledger.flush();
    const stored = await countLedgerRows(t.ctx.database.db, secondId, {});
    expect(stored).toBe(sent);
    expect(t.ctx.ledger.stats()).toMatchObject({ droppedRefused: 1, queuedRows: 0 });
    const last = await t.app.inject({ url: '/api/agent/me', headers: bearer(second) });
    expect(last.headers['x-service-ledger-event-id']).toBeTruthy();
    const warns = lines.filter((l) => l.includes('ledger writer'));
    expect(warns).toHaveLength(1);
    expect(warns[0]).not.toContain('poison-marker');
    expect(JSON.parse(warns[0]!)).toMatchObject({ kind: 'row_refused', dropped: 1, err: { sqlState: '23503' } });
    console.log(`ledger rows stored for a second key after a poisoned row: ${stored}/${sent}`);
  });
});
