import { expect } from 'vitest';
import { checkBooks } from '../../src/services/doctor.js';
import { futuresMarginDiscrepancies } from '../../src/storage/futures-repo.js';
import { bearer, type TestApp } from './app.js';

/** Futures requests on a test app, and the books check to run after them. */
export function futuresHelpers(getApp: () => TestApp) {
  let seq = 0;
  const post = (key: string, path: string, payload: object) =>
    getApp().app.inject({ method: 'POST', url: `/api/agent/futures/${path}`, headers: bearer(key), payload });
  /** Opens a position (a fresh idempotency key each call); expects 201. */
  const open = async (key: string, payload: object) => {
    const res = await post(key, 'open', { idempotencyKey: `risk-${(seq += 1)}`, ...payload });
    expect(res.statusCode).toBe(201);
    return res.json().position as { id: number; liquidationPrice: number };
  };
  /** The journal and the futures margin both balance. */
  async function journalBalances(): Promise<void> {
    const db = getApp().ctx.database.db;
    expect((await checkBooks(db)).discrepancies).toEqual([]);
    expect(await futuresMarginDiscrepancies(db)).toEqual([]);
  }
  return { post, open, journalBalances };
}
