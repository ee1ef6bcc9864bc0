import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/env.js';
import { mintsDemoKey, roleWarnings } from '../../src/config/role-defaults.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 3000, host: '127.0.0.1', databaseUrl: null, redisUrl: null, agentRpm: 120, tradeWpm: 20 });
    expect(config.marketData).toEqual({ kind: 'sim' });
    expect(config.futuresOpenEnabled && config.pmOpenEnabled).toBe(true);
  });

  it('reports every problem at once', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'abc', DATABASE_URL: 'mysql://x', AGENT_RPM: '0', FUTURES_OPEN_ENABLED: 'maybe', MARKET_DATA: 'tape' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['PORT', 'DATABASE_URL', 'AGENT_RPM', 'FUTURES_OPEN_ENABLED', 'MARKET_DATA']) expect(problems).toContain(name);
  });

  it('refuses at start what would fail later: a replay tape that does not exist, the metrics port on the API port', () => {
    expect(() => loadConfig({ MARKET_DATA: 'replay:/nonexistent/tape.ndjson' })).toThrow(/MARKET_DATA replay tape \/nonexistent\/tape.ndjson does not exist/);
    expect(() => loadConfig({ PORT: '3100', METRICS_PORT: '3100' })).toThrow(/METRICS_PORT must differ from PORT/);
    expect(loadConfig({ PORT: '3100', METRICS_PORT: '9100' }).metricsPort).toBe(9100);
    // the tokenless metrics port listens on HOST unless METRICS_HOST says where (a private interface)
    expect(loadConfig({ HOST: '0.0.0.0', METRICS_PORT: '9100' }).metricsHost).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '0.0.0.0', METRICS_PORT: '9100', METRICS_HOST: '10.0.0.7' }).metricsHost).toBe('10.0.0.7');
    // a directory where a file belongs, a file where the data directory belongs: one line at start, not a stack later
    const dir = mkdtempSync(join(tmpdir(), 'config-'));
    const file = join(dir, 'plain-file');
    writeFileSync(file, '');
    expect(() => loadConfig({ COINS_FILE: dir })).toThrow(/COINS_FILE .* is not a file/);
    expect(() => loadConfig({ MARKET_DATA: `replay:${dir}` })).toThrow(/MARKET_DATA replay tape .* is not a file/);
    expect(() => loadConfig({ DATA_DIR: file })).toThrow(/DATA_DIR .*plain-file is not a directory/);
    expect(loadConfig({ DATA_DIR: dir }).dataDir).toBe(dir);
  });

  it('reads TRUST_PROXY as a switch or as the trusted proxies’ addresses', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.7, fd00::/8' }).trustProxy).toBe('10.0.0.0/8,192.168.1.7,fd00::/8');
    for (const bad of ['2', 'lb.internal', '10.0.0.0/8,', '10.0.0.0/99', '::1/129', '999.1.1.1', '10.0.0.0/8/8']) expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY/);
    // what it accepts, the server's proxy check takes too (a range it could not read crashed the start)
    for (const good of ['10.0.0.0/8, 192.168.1.7, fd00::/8', '::1/128,127.0.0.1/32']) {
      const trustProxy = loadConfig({ TRUST_PROXY: good }).trustProxy;
      expect(() => Fastify({ trustProxy }), good).not.toThrow();
    }
  });

  it('reads integers written in decimal digits only', () => {
    for (const bad of ['0x10', '1e3', '+5', '5.0', '0b11']) expect(() => loadConfig({ PORT: bad }), bad).toThrow(/PORT must be an integer between/);
    expect(loadConfig({ PORT: '3100' }).port).toBe(3100);
  });

  it('parses flags, replay tapes and budgets', () => {
    const tape = join(mkdtempSync(join(tmpdir(), 'config-')), 'tape.jsonl');
    writeFileSync(tape, '');
    const config = loadConfig({ PM_OPEN_ENABLED: 'false', MARKET_DATA: `replay:${tape}`, TRADE_WPM: '5', REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(config.pmOpenEnabled).toBe(false);
    expect(config.marketData).toMatchObject({ kind: 'replay' });
    expect(config.tradeWpm).toBe(5);
    expect(config.redisUrl).toBe('redis://127.0.0.1:6379');
  });
});

describe('start-up warnings of a role', () => {
  it('warns an api process without REDIS_URL or ADMIN_TOKEN (budgets and the admin token differed per process); serve and worker need neither', () => {
    const bare = { redisUrl: null, adminToken: null };
    const api = roleWarnings('api', bare);
    expect(api).toHaveLength(2);
    expect(api[0]).toMatch(/^REDIS_URL is unset/);
    expect(api[1]).toMatch(/^ADMIN_TOKEN is unset/);
    expect(roleWarnings('api', { redisUrl: 'redis://127.0.0.1:6379', adminToken: 'x'.repeat(16) })).toEqual([]);
    expect(roleWarnings('serve', bare)).toEqual([]);
    expect(roleWarnings('worker', bare)).toEqual([]);
  });
});

describe('the demo key by role', () => {
  it('is minted by serve, not by api unless DEMO_KEY=on (it was printed into production logs), never by a worker', () => {
    expect(loadConfig({}).demoKey).toBeNull();
    expect(mintsDemoKey('serve', loadConfig({}))).toBe(true);
    expect(mintsDemoKey('api', loadConfig({}))).toBe(false);
    expect(mintsDemoKey('api', loadConfig({ DEMO_KEY: 'on' }))).toBe(true);
    expect(mintsDemoKey('serve', loadConfig({ DEMO_KEY: 'off' }))).toBe(false);
    expect(mintsDemoKey('worker', loadConfig({ DEMO_KEY: 'on' }))).toBe(false);
    expect(() => loadConfig({ DEMO_KEY: 'yes' })).toThrow(/DEMO_KEY/);
  });
});
