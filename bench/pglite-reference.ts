/**
 * The PGlite write reference: pgbench's TPC-B-like transaction (update an account, read it
 * back, update its teller and branch, insert a history row) in a raw PGlite loop, file-backed
 * in a fresh temp dir like the service, 16 concurrent callers, for BENCH_REFERENCE_SECONDS.
 * Prints one JSON line: {"tps": …, "transactions": …}. Run by bench/run.ts in its own process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';

const seconds = Number(process.env.BENCH_REFERENCE_SECONDS ?? 5);
const clients = Number(process.env.BENCH_REFERENCE_CLIENTS ?? 16);
const ACCOUNTS = 100_000; // pgbench scale 1
const TELLERS = 10;

const dir = mkdtempSync(join(tmpdir(), 'paper-arena-pglite-ref-'));
try {
  const db = await PGlite.create(join(dir, 'pgdata'));
  await db.exec(`
    create table branches (bid int primary key, bbalance int not null, filler char(88));
    create table tellers (tid int primary key, bid int not null, tbalance int not null, filler char(84));
    create table accounts (aid int primary key, bid int not null, abalance int not null, filler char(84));
    create table history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22));
    insert into branches values (1, 0, '');
    insert into tellers select t, 1, 0, '' from generate_series(1, ${TELLERS}) t;
    insert into accounts select a, 1, 0, '' from generate_series(1, ${ACCOUNTS}) a;
  `);
  await db.exec('analyze');
  const rand = (n: number) => 1 + Math.floor(Math.random() * n);
  let transactions = 0;
  const endAt = Date.now() + seconds * 1000;
  const client = async () => {
    while (Date.now() < endAt) {
      const aid = rand(ACCOUNTS);
      const tid = rand(TELLERS);
      const delta = Math.floor(Math.random() * 10_001) - 5000;
      await db.transaction(async (tx) => {
        await tx.query('update accounts set abalance = abalance + $1 where aid = $2', [delta, aid]);
        await tx.query('select abalance from accounts where aid = $1', [aid]);
        await tx.query('update tellers set tbalance = tbalance + $1 where tid = $2', [delta, tid]);
        await tx.query('update branches set bbalance = bbalance + $1 where bid = 1', [delta]);
        await tx.query('insert into history (tid, bid, aid, delta, mtime) values ($1, 1, $2, $3, current_timestamp)', [tid, aid, delta]);
      });
      transactions += 1;
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: clients }, client));
  const elapsed = (Date.now() - started) / 1000;
  await db.close();
  process.stdout.write(`${JSON.stringify({ tps: Math.round((transactions / elapsed) * 10) / 10, transactions, seconds: elapsed, clients })}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
