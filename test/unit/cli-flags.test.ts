import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { checkFlags, CliError, parseArgs } from '../../src/cli/args.js';
import { serverBaseUrl } from '../../src/cli/admin-ops.js';
import { runCli } from '../../src/cli/main.js';
import { testConfig } from '../../src/config/env.js';

const flagsOf = (line: string) => parseArgs(line.split(' ')).flags;

describe('checkFlags', () => {
  const spec = { values: ['user', 'scopes'], switches: ['public', 'json'] };
  it('takes the flags a command names, switches without a value', () => {
    expect(() => checkFlags(flagsOf('--user me --scopes read,trade:spot --public --json'), spec)).not.toThrow();
  });
  it('refuses a misspelt flag and names the ones the command takes', () => {
    expect(() => checkFlags(flagsOf('--user me --scope trade:spot'), spec)).toThrow(new CliError('unknown flag --scope; this command takes --user, --scopes, --public, --json'));
  });
  it('refuses a value given to a switch (--public false must not publish)', () => {
    expect(() => checkFlags(flagsOf('--user me --public false'), spec)).toThrow(/--public is a switch and takes no value \(got "false"\)/);
    expect(() => checkFlags(flagsOf('--public=no'), spec)).toThrow(/--public is a switch/);
  });
});

describe('runCli refuses bad flags before it touches anything', () => {
  let stderr: string[];
  beforeEach(() => {
    stderr = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (stderr.push(String(chunk)), true));
  });
  afterEach(() => vi.restoreAllMocks());

  // A database URL nothing answers on: had the command run, it would fail differently (or hang).
  const config = testConfig({ databaseUrl: 'postgres://nobody@127.0.0.1:1/none', port: 1 });
  it.each([
    ['keys create --user me --scope trade:spot', 'unknown flag --scope'],
    ['keys create --user me --public false', '--public is a switch'],
    ['keys revoke 7 --forse', 'unknown flag --forse'],
    ['keys revoke --force 7', '--force is a switch and takes no value (got "7"); leave it out for off, and put arguments before flags'],
    ['market record --out t.ndjson --minute 5', 'unknown flag --minute'],
    ['doctor --fix', 'this command takes no flags'],
    ['competitions list --all', 'unknown flag --all'],
    // what the admin API refuses is refused on the database path too, with its message
    ['keys create --user me --scopes=', '400 invalid_request: body.scopes must NOT have fewer than 1 items'],
    ['keys create --user me --name=', '400 invalid_request: body.name must NOT have fewer than 1 characters'],
    [`keys create --user me --name ${'n'.repeat(81)}`, 'body.name must NOT have more than 80 characters'],
    ['keys revoke 99999999999', 'an integer from 1 to 2147483647'],
    ['keys rotate', 'give the key id'],
    ['keys rotate 7 --force', 'unknown flag --force'],
    ['agents publish 2147483648', 'an integer from 1 to 2147483647'],
    ['competitions enter cup 99999999999', 'body.keyId must be <= 2147483647'],
    ['competitions remove cup', 'remove needs <slug> <keyId>'],
    ['competitions edit cup', 'edit needs at least one of --title'],
    ['competitions edit cup --visibility hidden', '--visibility is featured, public or unlisted'],
    ['competitions edit cup --ends tomorrow', 'body.endsAt must match format "date-time"'],
    ['competitions edit cup --slug cup2', 'unknown flag --slug'],
    ['competitions create --slug cup --title Cup --starts 2026-11-27 --ends 2026-12-01T00:00:00Z', 'body.startsAt must match format "date-time"'],
  ])('%s → exit 2', async (line, message) => {
    expect(await runCli(config, line.split(' '))).toBe(2);
    expect(stderr.join('')).toContain(message);
  });
  it('answers a command named like an object property with the usage, exit 2', async () => {
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    expect(await runCli(config, ['constructor', '--x'])).toBe(2);
    expect(String(stdout.mock.calls[0]?.[0])).toContain('paper-arena <command>');
  });
});

describe('PAPER_ARENA_URL', () => {
  afterEach(() => vi.unstubAllEnvs());
  const config = testConfig({ port: 3000 });
  it('is read as an http(s) address, a trailing slash dropped', () => {
    vi.stubEnv('PAPER_ARENA_URL', 'http://127.0.0.1:3710/');
    expect(serverBaseUrl(config)).toBe('http://127.0.0.1:3710');
    vi.stubEnv('PAPER_ARENA_URL', '');
    expect(serverBaseUrl(config)).toBe('http://127.0.0.1:3000');
  });
  it('refuses an address without a scheme, naming the variable (it was an unreachable server to retry)', () => {
    vi.stubEnv('PAPER_ARENA_URL', '127.0.0.1:3710');
    expect(() => serverBaseUrl(config)).toThrow(new CliError('PAPER_ARENA_URL is not a URL: 127.0.0.1:3710 (an address such as http://127.0.0.1:3000)'));
    vi.stubEnv('PAPER_ARENA_URL', 'localhost:3710');
    expect(() => serverBaseUrl(config)).toThrow(/PAPER_ARENA_URL must be http:\/\/ or https:\/\//);
  });
});
