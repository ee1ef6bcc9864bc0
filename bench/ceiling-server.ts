/**
 * The ceiling: a bare Fastify 5 hello-world, run in its own process by bench/run.ts
 * so it gets the same treatment as the service (separate process, same runtime,
 * same loader), and nothing else. Its req/s is the most any Fastify route could do
 * on this machine with this load generator.
 */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));

const port = Number(process.env.PORT ?? 0);
const host = process.env.HOST ?? '127.0.0.1';
await app.listen({ port, host });

const close = () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', close);
process.on('SIGINT', close);

// If the harness dies without cleaning up (SIGKILL), do not linger as an orphan.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) close();
}, 1000).unref();
