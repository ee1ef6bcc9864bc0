import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliError } from '../../src/cli/args.js';
import { runMarketCommand } from '../../src/cli/market.js';
import { parseArgs } from '../../src/cli/args.js';
import { testConfig } from '../../src/config/env.js';

const run = (args: string[]) => {
  const { positional, flags } = parseArgs(args);
  return runMarketCommand(testConfig(), positional[0], flags);
};

describe('market record arguments', () => {
  it('refuses bad arguments before doing any work', async () => {
    await expect(run(['play'])).rejects.toThrow(/usage: market record/);
    await expect(run(['record'])).rejects.toThrow(/--out <file> is required/);
    await expect(run(['record', '--out', 't.ndjson', '--minutes', '0'])).rejects.toThrow(/--minutes must be an integer between 1 and 10080/);
    await expect(run(['record', '--out', 't.ndjson', '--every', 'x'])).rejects.toThrow(CliError);
    await expect(run(['record', '--out', 't.ndjson', '--source', 'moon'])).rejects.toThrow(/--source must be sim or live/);
    await expect(run(['record', '--out', 't.ndjson', '--source', 'live', '--every', '5'])).rejects.toThrow(/--every must be an integer between 15 and 3600/);
    await expect(run(['record', '--out', 't.ndjson', '--source', 'live', '--no-wait'])).rejects.toThrow(/--no-wait records the simulated market only/);
  });
});

describe('market record --source live without a network (issue 12 item 10)', () => {
  it('fails at once with a clear message and writes no tape', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pa-record-'));
    const tape = join(dir, 'live.ndjson');
    const { positional, flags } = parseArgs(['record', '--out', tape, '--source', 'live', '--minutes', '1', '--every', '15']);
    const offline = {
      fetch: async () => Promise.reject(new TypeError('fetch failed')),
      sleep: async () => undefined,
    };
    const started = Date.now();
    await expect(runMarketCommand(testConfig(), positional[0], flags, offline)).rejects.toThrow(/live sources answered no prices.*fetch failed.*no tape written/);
    await expect(runMarketCommand(testConfig(), positional[0], flags, offline)).rejects.toThrow(CliError);
    expect(existsSync(tape)).toBe(false);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('market record --source live as its own process', () => {
  it('waits out the sources\' retries and exits 2 with the message (an unheld retry timer let it exit 0, silently)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pa-record-'));
    const tape = join(dir, 'live.ndjson');
    const src = resolve('src');
    const script = join(dir, 'record.ts');
    // the real retry waits, a fetch that fails like an offline machine (no test reaches the network)
    writeFileSync(
      script,
      `import { parseArgs } from '${src}/cli/args.ts';
import { runMarketCommand } from '${src}/cli/market.ts';
import { testConfig } from '${src}/config/env.ts';
const { positional, flags } = parseArgs(['record', '--out', ${JSON.stringify(tape)}, '--source', 'live', '--minutes', '1', '--every', '15']);
const offline = { fetch: async () => Promise.reject(new TypeError('fetch failed')) };
runMarketCommand(testConfig(), positional[0], flags, offline).then(
  (code) => process.exit(code),
  (error) => { process.stderr.write(error.message + '\\n'); process.exit(2); },
);
`,
    );
    const child = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 60_000 });
    expect({ status: child.status, stderr: child.stderr }).toMatchObject({ status: 2, stderr: expect.stringMatching(/live sources answered no prices/) });
    expect(existsSync(tape)).toBe(false);
  }, 70_000);
});

