import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, ENTRY, crashServerEnv, exited, freePort, startServer } from './support/crash-server.js';

/**
 * Kills the real server (SIGKILL) in the middle of a stream of idempotent PM opens, restarts
 * it on the same data, retries every request with its same key, and then checks that the
 * journal agrees with every book (doctor) and every position exists once.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'paper-arena-pm-crash-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('PM opens survive a SIGKILL of the server', () => {
  it('after a restart and retries with the same keys, doctor passes and every position exists exactly once', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    let server = await startServer(dataDir, port);
    try {
      const created = await fetch(`${base}/api/admin/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ userId: 'crash', scopes: ['read', 'trade:pm'] }),
      });
      expect(created.status).toBe(201);
      const { key } = (await created.json()) as { key: string };
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      type Found = { source: string; slug: string; eligible: boolean; pinned: boolean; outcomes: { externalMarketId: string; eligible: boolean }[] };
      // PM data is ingested by the server's own job: wait for an openable market.
      let market: Found | undefined;
      await expect
        .poll(
          async () => {
            const found = (await (await fetch(`${base}/api/agent/pm/discover?limit=50`, { headers })).json()) as { data: Found[] };
            market = found.data.find((m) => m.eligible && !m.pinned && m.outcomes[0]!.eligible);
            return market !== undefined;
          },
          { timeout: 240_000, interval: 1000 },
        )
        .toBe(true);
      expect(market).toBeDefined();
      const outcome = market!.outcomes[0]!.externalMarketId;

      const intents = Array.from({ length: 60 }, (_, i) => ({
        idempotencyKey: `pm-crash-${i}`,
        source: market!.source,
        slug: market!.slug,
        outcomeExternalMarketId: outcome,
        side: i % 2 === 0 ? 'yes' : 'no',
        stakeMusd: 10,
      }));
      const send = async (intent: (typeof intents)[number]) => {
        const res = await fetch(`${base}/api/agent/pm/open`, { method: 'POST', headers, body: JSON.stringify(intent) });
        return { status: res.status, body: (await res.json()) as { position: { id: number }; idempotentReplay?: boolean } };
      };

      // A stream with 4 requests in flight; SIGKILL once 20 are acknowledged.
      const acked = new Map<string, number>();
      let next = 0;
      let killed = false;
      const worker = async () => {
        while (!killed && next < intents.length) {
          const intent = intents[next++]!;
          try {
            const res = await send(intent);
            expect(res.status, JSON.stringify(res.body)).toBe(201);
            acked.set(intent.idempotencyKey, res.body.position.id);
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
      expect(intents.filter((i) => !acked.has(i.idempotencyKey)).length).toBeGreaterThan(0);

      server = await startServer(dataDir, port);
      const ids: number[] = [];
      for (const intent of intents) {
        const res = await send(intent);
        expect([200, 201], JSON.stringify(res.body)).toContain(res.status);
        ids.push(res.body.position.id);
        const first = acked.get(intent.idempotencyKey);
        if (first !== undefined) {
          expect(res.body.idempotentReplay).toBe(true);
          expect(res.body.position.id).toBe(first);
        }
      }
      expect(new Set(ids).size).toBe(60);

      const doctor = spawnSync(process.execPath, [...ENTRY, 'doctor'], { env: crashServerEnv(dataDir, port), encoding: 'utf8' });
      expect(doctor.status, doctor.stdout + doctor.stderr).toBe(0);
      const listed = (await (await fetch(`${base}/api/agent/positions/pm`, { headers })).json()) as { positions: { id: number; status: string }[] };
      expect(listed.positions.map((p) => p.id).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
      const portfolio = (await (await fetch(`${base}/api/agent/portfolio`, { headers })).json()) as { equity: { frozenPm: number } };
      expect(portfolio.equity.frozenPm).toBe(600);
    } finally {
      server.kill('SIGTERM');
      await exited(server);
    }
  }, 600_000);
});
