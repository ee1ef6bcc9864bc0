import { freshDatabase, type TestDatabase } from './db.js';

/**
 * A fresh test database that counts the statements (round trips) it is sent, BEGIN and
 * COMMIT included. The private ledger's batched inserts run on their own timer, outside the
 * request, so they are not counted against it.
 */
export interface QueryCounter {
  /** Statements sent while `work` ran, and their text. */
  measure(work: () => Promise<unknown>): Promise<{ count: number; statements: string[] }>;
}

export async function countingDatabase(): Promise<{ testDb: TestDatabase; counter: QueryCounter }> {
  let statements: string[] | null = null;
  const testDb = await freshDatabase({
    onQuery: (text) => {
      if (statements && !/ledger_events/i.test(text)) statements.push(text.replace(/\s+/g, ' ').slice(0, 160));
    },
  });
  return {
    testDb,
    counter: {
      async measure(work) {
        statements = [];
        try {
          await work();
          return { count: statements.length, statements };
        } finally {
          statements = null;
        }
      },
    },
  };
}
