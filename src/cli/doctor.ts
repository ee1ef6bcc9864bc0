import type { Config } from '../config/env.js';
import { connectAdmin } from './admin-ops.js';

/** `paper-arena doctor`: exit 0 when every book matches its journal, 1 otherwise. */
export async function runDoctor(config: Config): Promise<number> {
  const ops = await connectAdmin(config);
  try {
    const report = await ops.doctor();
    process.stdout.write(`checked ${report.walletsChecked} book(s) via the ${ops.via}: ${report.ok ? 'all balances match the journal' : 'DIFFERENCES FOUND'}\n`);
    for (const d of report.discrepancies) {
      process.stdout.write(`  wallet ${d.walletId} (key ${d.keyId ?? '?'}) ${d.bucket}: balance ${d.balance ?? '-'} vs journal ${d.journal}\n`);
    }
    for (const d of report.holdingDiscrepancies ?? []) {
      process.stdout.write(`  wallet ${d.walletId} (key ${d.keyId ?? '?'}) coin ${d.coinId} ${d.bucket}: balance ${d.balance ?? '-'} vs journal ${d.journal}\n`);
    }
    // An older server (before this field) answers without it.
    const changed = report.changedMigrations ?? [];
    if (changed.length > 0) {
      process.stdout.write(`warning: migration(s) changed since this database applied them (they do not run again): ${changed.join(', ')}\n`);
    }
    return report.ok ? 0 : 1;
  } finally {
    await ops.close();
  }
}
