import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, ENTRY, crashServerEnv, exited, freePort, startServer } from './support/crash-server.js';

/**
 * Kills the real server (SIGKILL) in the middle of a stream of idempotent spot orders,
 * restarts it on the same data, retries every unacknowledged request with its same key, and
 * then checks that the journal agrees with every book (doctor), every order exists once, and
 * every acknowledged order's ledger row (the X-Service-Ledger-Event-Id it answered) exists.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'paper-arena-crash-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Intent {
  idempotencyKey: string;
  body: Record<string, unknown>;
  kind: 'market' | 'limit';
}

describe('spot orders survive a SIGKILL of the server', () => {
  it('after a restart and retries with the same keys, doctor passes and every order exists exactly once', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    let server = await startServer(dataDir, port);
    try {
      const created = await fetch(`${base}/api/admin/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ userId: 'crash', scopes: ['read', 'trade:spot'] }),
      });
      expect(created.status).toBe(201);
      const { key } = (await created.json()) as { key: string };
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      const quote = await fetch(`${base}/api/agent/spot/quote`, { method: 'POST', headers, body: JSON.stringify({ coinId: '1', side: 'buy', quantity: 0.0001 }) });
      expect((await quote.json()).eligible).toBe(true);

      // 60 market buys and 20 limit buys far below the market (they rest, never fill).
      const intents: Intent[] = Array.from({ length: 80 }, (_, i) => {
        const kind = i % 4 === 3 ? 'limit' : 'market';
        const idempotencyKey = `crash-${i}`;
        const body =
          kind === 'market'
            ? { coinId: '1', side: 'buy', orderType: 'market', quantity: 0.0001, idempotencyKey }
            : { coinId: '1', side: 'buy', orderType: 'limit', quantity: 0.01, limitPrice: 1, idempotencyKey };
        return { idempotencyKey, body, kind };
      });
      const send = async (intent: Intent) => {
        const res = await fetch(`${base}/api/agent/spot/order`, { method: 'POST', headers, body: JSON.stringify(intent.body) });
        return { status: res.status, body: (await res.json()) as Record<string, unknown>, ledgerEventId: res.headers.get('x-service-ledger-event-id') };
      };

      // A stream with 4 requests in flight; SIGKILL once 20 are acknowledged.
      const acked = new Map<string, Record<string, unknown>>();
      const ackedLedgerIds = new Map<string, number>();
      let next = 0;
      let killed = false;
      const worker = async () => {
        while (!killed && next < intents.length) {
          const intent = intents[next++]!;
          try {
            const res = await send(intent);
            expect(res.status, JSON.stringify(res.body)).toBe(200);
            acked.set(intent.idempotencyKey, res.body);
            expect(res.ledgerEventId).toMatch(/^\d+$/);
            ackedLedgerIds.set(intent.idempotencyKey, Number(res.ledgerEventId));
            if (acked.size >= 20 && !killed) {
              killed = true;
              server.kill('SIGKILL');
            }
          } catch {
            return; // connection cut by the kill: this request is unacknowledged
          }
        }
      };
      await Promise.all([worker(), worker(), worker(), worker()]);
      await exited(server);
      expect(killed).toBe(true);
      const unacked = intents.filter((i) => !acked.has(i.idempotencyKey));
      expect(unacked.length).toBeGreaterThan(0);

      server = await startServer(dataDir, port);
      // Retry everything with its same key: unacknowledged ones execute now or replay what
      // committed before the kill; acknowledged ones replay their original answer.
      const finals = new Map<string, Record<string, unknown>>();
      for (const intent of intents) {
        const res = await send(intent);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        finals.set(intent.idempotencyKey, res.body);
        const first = acked.get(intent.idempotencyKey);
        if (first) {
          expect(res.body.idempotentReplay).toBe(true);
          expect(res.body.orderId ?? res.body.restingOrderId).toBe(first.orderId ?? first.restingOrderId);
        }
      }

      const doctor = spawnSync(process.execPath, [...ENTRY, 'doctor'], { env: crashServerEnv(dataDir, port), encoding: 'utf8' });
      expect(doctor.status, doctor.stdout + doctor.stderr).toBe(0);

      const fillIds = intents.filter((i) => i.kind === 'market').map((i) => finals.get(i.idempotencyKey)!.orderId as number);
      const restingIds = intents.filter((i) => i.kind === 'limit').map((i) => finals.get(i.idempotencyKey)!.restingOrderId as number);
      expect(new Set(fillIds).size).toBe(60);
      expect(new Set(restingIds).size).toBe(20);
      const trades = (await (await fetch(`${base}/api/agent/trades?venue=spot&limit=100`, { headers })).json()) as { trades: { id: number }[] };
      expect(trades.trades.map((t) => t.id).sort((a, b) => a - b)).toEqual([...fillIds].sort((a, b) => a - b));
      const open = (await (await fetch(`${base}/api/agent/orders/open?limit=200`, { headers })).json()) as { rows: { id: number }[] };
      expect(open.rows.map((r) => r.id).sort((a, b) => a - b)).toEqual([...restingIds].sort((a, b) => a - b));
      // The ledger rows the acknowledged answers named survived the kill.
      const ledgerPage = (await (
        await fetch(`${base}/api/agent/ledger?eventType=write&status=success&limit=100`, { headers })
      ).json()) as { data: { id: number; idempotencyKey: string | null }[] };
      const stored = new Map(ledgerPage.data.map((r) => [r.id, r.idempotencyKey]));
      for (const [idempotencyKey, id] of ackedLedgerIds) expect(stored.get(id), `ledger row ${id}`).toBe(idempotencyKey);
      const wallet = (await (await fetch(`${base}/api/agent/wallet?coinId=1`, { headers })).json()) as { coin: { available: number } };
      expect(wallet.coin.available).toBeCloseTo(60 * 0.0001, 10);
    } finally {
      server.kill('SIGTERM');
      await exited(server);
    }
  }, 1_200_000);
});
