import { freshDatabase, type TestDatabase } from './db.js';

/**
 * A fresh test database that counts the statements (round trips) it is sent, BEGIN and
 * COMMIT included. Private ledger inserts are counted apart (`ledgerInserts`): a read's row is
 * written by a later batch, a write's before its answer.
 */
export interface QueryCounter {
  /** Statements sent while `work` ran, and their text (ledger inserts apart). */
  measure(work: () => Promise<unknown>): Promise<{ count: number; statements: string[]; ledgerInserts: number }>;
}

export async function countingDatabase(): Promise<{ testDb: TestDatabase; counter: QueryCounter }> {
  let statements: string[] | null = null;
  let ledgerInserts = 0;
  const testDb = await freshDatabase({
    onQuery: (text) => {
      if (!statements) return;
      if (/insert into ledger_events/i.test(text)) ledgerInserts += 1;
      else if (!/ledger_events/i.test(text)) statements.push(text.replace(/\s+/g, ' ').slice(0, 160));
    },
  });
  return {
    testDb,
    counter: {
      async measure(work) {
        statements = [];
        ledgerInserts = 0;
        try {
          await work();
          return { count: statements.length, statements, ledgerInserts };
        } finally {
          statements = null;
        }
      },
    },
  };
}
