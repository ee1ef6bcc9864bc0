import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/services/keys.js';
import { performanceRead } from '../../src/storage/account-repo.js';
import { insertLedgerRows, listLedgerRows, type LedgerInsert } from '../../src/storage/ledger-repo.js';
import { migrate, migrationFiles, splitStatements } from '../../src/storage/migrate.js';
import { freshDatabase, type TestDatabase } from '../support/db.js';

/**
 * The ledger fold (migrations 0011, 0020): per-key counts for auditStats, kept by a statement
 * trigger on each inserted batch. A write "follows a quote" when the same key quoted the same
 * instrument and venue in the 5 minutes before it — in the same batch or an earlier one.
 */
let t: TestDatabase;
beforeAll(async () => {
  t = await freshDatabase();
}, 60_000);
afterAll(async () => t?.drop());

const T0 = Date.parse('2026-11-20T12:00:00Z');
const MIN = 60_000;

function row(keyId: number, eventType: 'quote' | 'write' | 'read', atMs: number, body: Record<string, unknown> | null, venue = 'spot'): LedgerInsert {
  return {
    id: randomUUID(),
    keyId,
    method: eventType === 'read' ? 'GET' : 'POST',
    endpoint: `/api/agent/${eventType}`,
    venue,
    eventType,
    statusCode: 200,
    ledgerStatus: 'ok',
    requestSummary: body === null ? null : { body },
    responseSummary: { ok: true },
    blockReasons: [],
    startedAt: new Date(atMs),
  };
}

const newKey = async (name: string) => (await createKey(t.database.db, { userId: 'fold', agentName: name, scopes: ['read'] })).keyId;
const audit = async (keyId: number) => (await performanceRead(t.database.db, keyId)).audit;

describe('ledger fold', () => {
  it('counts a write as following a quote only for the same key, instrument and venue within 5 minutes', async () => {
    const db = t.database.db;
    const [a, b] = [await newKey('a'), await newKey('b')];
    await insertLedgerRows(db, [
      row(a, 'quote', T0, { coinId: '1' }),
      row(b, 'quote', T0, { coinId: '2' }), // another key's quote
      row(a, 'write', T0 + 1 * MIN, { coinId: '1' }), // follows a's quote in this batch
      row(a, 'write', T0 + 2 * MIN, { coinId: '2' }), // another instrument
      row(a, 'write', T0 + 3 * MIN, { coinId: '1' }, 'futures'), // another venue
      row(a, 'write', T0 - 1 * MIN, { coinId: '1' }), // before the quote
      row(a, 'read', T0 + 1 * MIN, null),
      row(b, 'write', T0 + 4 * MIN, { coinId: '2' }), // follows b's quote
    ]);
    expect(await audit(a)).toMatchObject({ ledgerEventCount: 6, quoteCount: 1, writeCount: 4, writesWithQuote: 1 });
    expect(await audit(b)).toMatchObject({ ledgerEventCount: 2, quoteCount: 1, writeCount: 1, writesWithQuote: 1 });

    // later batches: the last quote of an earlier batch counts for 5 minutes, a PM instrument is source/slug
    await insertLedgerRows(db, [row(a, 'write', T0 + 4 * MIN, { coinId: '1' }), row(a, 'write', T0 + 6 * MIN, { coinId: '1' })]);
    expect(await audit(a)).toMatchObject({ writeCount: 6, writesWithQuote: 2 });
    await insertLedgerRows(db, [row(a, 'quote', T0 + 10 * MIN, { source: 'kalshi', slug: 'x' }, 'pm')]);
    await insertLedgerRows(db, [
      row(a, 'write', T0 + 11 * MIN, { source: 'kalshi', slug: 'x' }, 'pm'),
      row(a, 'write', T0 + 11 * MIN, { source: 'kalshi', slug: 'y' }, 'pm'),
    ]);
    expect(await audit(a)).toMatchObject({ quoteCount: 2, writeCount: 8, writesWithQuote: 3 });
  });

  it('counts the writes that carry both a run id and a decision id — from the rows kept when migration 0033 ran, then as rows arrive', async () => {
    const db = t.database.db;
    // the database as it was before 0033: no evidence counters, the fold of 0020
    const fold0020 = splitStatements(migrationFiles().find((f) => f.name.startsWith('0020_'))!.sql).find((q) => q.includes('FUNCTION ledger_fold_events'))!;
    await db.execute(sql.raw(fold0020));
    await db.execute(sql`alter table ledger_key_totals drop column evidence_writes, drop column writes_with_evidence`);
    await db.execute(sql`delete from schema_migrations where name like '0033_%'`);
    const keyId = await newKey('traced');
    const traced = (r: LedgerInsert, runId?: string, decisionId?: string) => ({ ...r, runId, decisionId });
    await insertLedgerRows(db, [
      traced(row(keyId, 'write', T0, { coinId: '1' }), 'run-1', 'd-1'),
      traced(row(keyId, 'write', T0, { coinId: '1' }), 'run-1'), // no decision id
      traced(row(keyId, 'read', T0, null), 'run-1', 'd-2'), // not a write
    ]);
    expect(await migrate(db)).toEqual([migrationFiles().find((f) => f.name.startsWith('0033_'))!.name]);
    expect(await audit(keyId)).toMatchObject({ writeCount: 2, evidenceWriteCount: 2, writesWithEvidence: 1 });

    await insertLedgerRows(db, [traced(row(keyId, 'write', T0 + MIN, { coinId: '1' }), 'run-2', 'd-3'), row(keyId, 'write', T0 + MIN, { coinId: '1' })]);
    expect(await audit(keyId)).toMatchObject({ writeCount: 4, evidenceWriteCount: 4, writesWithEvidence: 2, runIdEventCount: 4, decisionIdEventCount: 3 });
  });

  it('keeps each summary as it was sent: key order, numbers, text', async () => {
    const db = t.database.db;
    const keyId = await newKey('c');
    const summary = { zeta: 1, alpha: { price: 97955.93991685336, volume: 62084762437.4151 }, note: 'ünïcode ✓' };
    await insertLedgerRows(db, [{ ...row(keyId, 'read', T0, null), responseSummary: summary }]);
    const [stored] = await listLedgerRows(db, keyId, {}, { limit: 1, offset: 0 });
    expect(JSON.stringify(stored!.responseSummary)).toBe(JSON.stringify(summary));
  });
});
