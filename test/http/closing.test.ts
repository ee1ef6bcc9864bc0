import Fastify from 'fastify';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { answerWhileClosing, closingOptions } from '../../src/http/closing.js';

describe('a closing server', () => {
  it('answers a request that arrives on a kept-alive connection after close began with 503 shutting_down in the envelope', async () => {
    const app = Fastify(closingOptions);
    answerWhileClosing(app);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    app.get('/slow', async () => {
      started();
      await gate;
      return { ok: true };
    });
    app.get('/next', async () => ({ ok: true }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };

    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk));
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await running;
    const closed = app.close(); // waits for /slow
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.write('GET /next HTTP/1.1\r\nHost: x\r\n\r\n'); // pipelined on the same connection
    release();
    await Promise.all([closed, ended]);

    const answers = received.split(/(?=HTTP\/1\.1 )/);
    expect(answers[0]).toMatch(/^HTTP\/1\.1 200/); // the running request finished
    expect(answers[1]).toMatch(/^HTTP\/1\.1 503/);
    expect(answers[1]).toMatch(/connection: close/i);
    expect(JSON.parse(answers[1]!.slice(answers[1]!.indexOf('\r\n\r\n') + 4))).toEqual({ error: 'shutting_down', message: expect.stringContaining('shutting down') });
  });
});
