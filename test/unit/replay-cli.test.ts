import { describe, expect, it } from 'vitest';
import { CliError } from '../../src/cli/admin-ops.js';
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
  });
});
