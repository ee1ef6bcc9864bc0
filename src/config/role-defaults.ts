/** What a process does by default for its role (`serve`, `api`, `worker`). */
import type { Config } from './env.js';

/** The process roles: `serve` (API + jobs, one process), `api`, `worker`. */
export type Role = 'serve' | 'api' | 'worker';

/**
 * Settings an `api` process runs without, though a deployment of several needs them (docs/deployment.md):
 * each is legal for a single api, so the start goes on, but says so — the budgets or the admin
 * token quietly differed per process.
 */
export function roleWarnings(role: Role, config: Pick<Config, 'redisUrl' | 'adminToken'>): string[] {
  if (role !== 'api') return [];
  const warnings: string[] = [];
  if (!config.redisUrl) {
    warnings.push('REDIS_URL is unset: this api process counts the rate-limit budgets on its own (with N api processes behind a balancer a key gets N times its budget)');
  }
  if (!config.adminToken) {
    warnings.push('ADMIN_TOKEN is unset: this api process uses the token in its own DATA_DIR/admin-token (other processes have their own; set one ADMIN_TOKEN everywhere)');
  }
  return warnings;
}

/**
 * Whether a process mints (on a fresh database) and prints an all-scope demo key: a laptop's
 * `serve` does, to be tried at once; an `api` only with DEMO_KEY=on — its start-up lines go to
 * production logs, and the key would trade.
 */
export function mintsDemoKey(role: Role, config: Pick<Config, 'demoKey'>): boolean {
  if (role === 'worker') return false;
  return config.demoKey ?? role === 'serve';
}
