import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkBooks } from '../../src/services/doctor.js';
import { openDatabase, pgliteDirFor } from '../../src/storage/db.js';
import { futuresMarginDiscrepancies } from '../../src/storage/futures-repo.js';

const dataDir = mkdtempSync(join(tmpdir(), 'paper-arena-futures-crash-'));
const ADMIN = 'crash-test-admin-token-0123456789';
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function start(): Promise<{ child: ChildProcess; base: string }> {
  const { DATABASE_URL: _d, REDIS_URL: _r, ...rest } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/e2e/support/futures-server.ts'], {
    env: { ...rest, DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  await expect.poll(() => out, { timeout: 120_000, interval: 100 }).toMatch(/ready \d+/); // generous: the machine may be busy
  return { child, base: `http://127.0.0.1:${/ready (\d+)/.exec(out)![1]}` };
}

const exited = (child: ChildProcess) => new Promise<void>((resolve) => child.once('exit', () => resolve()));

describe('SIGKILL during futures opens and closes', () => {
  it('leaves the books balanced after a restart, and retries with the same keys finish the work once', async () => {
    let server = await start();
    const created = await fetch(`${server.base}/api/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ userId: 'crash', scopes: ['read', 'trade:futures'] }),
    }).then((r) => r.json());
    const headers = { authorization: `Bearer ${created.key}`, 'content-type': 'application/json' };
    const call = (base: string, path: string, body: object) =>
      fetch(`${base}/api/agent/futures/${path}`, { method: 'POST', headers, body: JSON.stringify(body) }).then(
        async (r) => ({ status: r.status, body: await r.json().catch(() => null) }),
        () => null, // the process died under the request
      );

    // one position to close repeatedly in part, and a stream of adds to it
    const first = await call(server.base, 'open', { coinId: '1', side: 'long', leverage: 5, marginMusd: 100, idempotencyKey: 'open-0' });
    expect(first?.status).toBe(201);
    const positionId = first!.body.position.id as number;
    const intents = Array.from({ length: 30 }, (_, i) =>
      i % 3 === 2
        ? { path: 'close', body: { positionId, fraction: 0.1, idempotencyKey: `close-${i}` } }
        : { path: 'open', body: { coinId: '1', side: 'long', leverage: 5, marginMusd: 10 + i, idempotencyKey: `open-${i + 1}` } },
    );
    const inFlight = intents.map((x) => call(server.base, x.path, x.body));
    await new Promise((r) => setTimeout(r, 150));
    server.child.kill('SIGKILL');
    await exited(server.child);
    await Promise.all(inFlight);

    server = await start();
    try {
      const doctor = await fetch(`${server.base}/api/admin/doctor`, { headers: { authorization: `Bearer ${ADMIN}` } }).then((r) => r.json());
      expect(doctor).toMatchObject({ ok: true, discrepancies: [] });
      // retrying every intent with its own key: done ones replay, lost ones run now, none twice
      for (const x of intents) {
        const res = await call(server.base, x.path, x.body);
        expect([200, 201]).toContain(res!.status);
      }
      const again = await Promise.all(intents.map((x) => call(server.base, x.path, x.body)));
      expect(again.every((r) => r!.status === 200 && r!.body.idempotentReplay === true)).toBe(true);
    } finally {
      server.child.kill('SIGTERM');
      await exited(server.child);
    }
    const database = await openDatabase({ databaseUrl: null, pgliteDir: pgliteDirFor(dataDir) });
    try {
      expect((await checkBooks(database.db)).discrepancies).toEqual([]);
      expect(await futuresMarginDiscrepancies(database.db)).toEqual([]);
    } finally {
      await database.close();
    }
  }, 300_000);
});
