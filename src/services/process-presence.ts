/**
 * The processes sharing one PostgreSQL database learn of each other, so that a `serve` process —
 * whose book cache (src/storage/book-cache.ts) is valid only while it is its database's only
 * writer — turns the cache off for good once any other process (a second `serve`, an `api`, a
 * `worker`) uses the database. Each process LISTENs, then says `hello:<id>`; each one hearing
 * another's hello answers `here:<id>`, so the newcomer learns of those already there too. After a
 * dropped LISTEN connection the hello is said again (a process may have come meanwhile).
 * PGlite is one process's database: nothing to do there.
 */
import { randomUUID } from 'node:crypto';
import type { Database } from '../storage/db.js';
import { notifyPresence, PROCESS_PRESENCE_CHANNEL } from '../storage/presence-repo.js';

export async function joinProcesses(database: Database, onOtherProcess: () => void): Promise<() => Promise<void>> {
  if (database.kind !== 'postgres') return async () => undefined;
  const id = randomUUID();
  const say = (kind: 'hello' | 'here') => notifyPresence(database.db, `${kind}:${id}`).catch(() => undefined);
  let heard = false;
  const stop = await database.listen(
    PROCESS_PRESENCE_CHANNEL,
    (payload) => {
      const [kind, from] = payload.split(':');
      if (!from || from === id) return;
      if (!heard) onOtherProcess();
      heard = true;
      if (kind === 'hello') void say('here');
    },
    // on every (re)connect: a process may have come while this one was not listening
    (listening) => {
      if (listening) void say('hello');
    },
  );
  return stop;
}
