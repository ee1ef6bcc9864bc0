/** bench/results/latest.json + latest.md */
import { execFileSync } from 'node:child_process';
import { cpus, totalmem, loadavg, platform, arch, release } from 'node:os';
import type { LoadSettings, Measurement } from './load.js';
import type { WriteReference } from './references.js';
import { round } from './processes.js';

export interface MachineInfo {
  date: string;
  platform: string;
  arch: string;
  kernel: string;
  cpus: number;
  cpuModel: string;
  totalMemMb: number;
  loadAvg1mAtStart: number;
  node: string;
  gitCommit: string | null;
  gitDirty: boolean | null;
}

export function machineInfo(repoRoot: string): MachineInfo {
  const git = (...args: string[]): string | null => {
    try {
      return execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return null;
    }
  };
  const status = git('status', '--porcelain');
  const list = cpus();
  return {
    date: new Date().toISOString(),
    platform: platform(),
    arch: arch(),
    kernel: release(),
    cpus: list.length,
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    totalMemMb: Math.round(totalmem() / 1024 / 1024),
    loadAvg1mAtStart: round(loadavg()[0] ?? 0, 2),
    node: process.version,
    gitCommit: git('rev-parse', '--short', 'HEAD'),
    gitDirty: status === null ? null : status.length > 0,
  };
}

export interface ScenarioResult extends Partial<Measurement> {
  name: string;
  method: string;
  path: string;
  status: 'ok' | 'failed';
  note?: string;
  /** reqPerSec / ceiling reqPerSec */
  ratioToCeiling?: number | null;
  /** what `ratio` compares with: the ceiling (reads) or the engine's write reference */
  reference?: string;
  /** reqPerSec / the reference's rate (req/s or tps) */
  ratio?: number | null;
  connections?: number;
  /** service RSS right after this scenario's measured run, MB */
  rssMb?: number | null;
}

export interface EngineResult {
  engine: 'pglite' | 'postgres';
  status: 'ok' | 'skipped' | 'failed';
  note?: string;
  /** ms from spawn to the first 200 from /readyz */
  readyMs?: number;
  keysCreated?: number;
  /** the same run's write reference (pgbench TPC-B-like / raw PGlite loop) */
  writeReference?: WriteReference;
  /** service RSS right after it became ready, before any load, MB */
  rssReadyMb?: number | null;
  /** service RSS at the end of the engine run, MB (Linux /proc VmRSS) */
  rssMb?: number | null;
  /** service peak RSS over the run, MB (VmHWM) */
  peakRssMb?: number | null;
  scenarios: ScenarioResult[];
}

export interface CeilingResult extends Partial<Measurement> {
  status: 'ok' | 'failed';
  note?: string;
  rssMb?: number | null;
}

export interface Report {
  schemaVersion: 1;
  machine: MachineInfo;
  settings: LoadSettings & { keys: number; command: string; quick?: boolean; historyOrders?: number };
  ceiling: CeilingResult;
  engines: EngineResult[];
}

const fmt = (value: number | null | undefined, digits = 0): string =>
  value === null || value === undefined || Number.isNaN(value)
    ? '–'
    : value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** autocannon's latency histogram has 1 ms resolution: 0 means "under 1 ms". */
const fmtMs = (value: number | null | undefined): string => (value === 0 ? '<1' : fmt(value, 0));
const fmtPct = (ratio: number | null | undefined): string =>
  ratio === null || ratio === undefined ? '–' : `${(ratio * 100).toFixed(ratio < 0.1 ? 1 : 0)}%`;

export function toMarkdown(report: Report): string {
  const m = report.machine;
  const s = report.settings;
  const lines: string[] = [];
  lines.push('# Paper Arena bench — latest run', '');
  lines.push(
    `${m.date} · node ${m.node} · ${m.cpus} × ${m.cpuModel} · ${fmt(m.totalMemMb)} MB RAM · ${m.platform}/${m.arch}` +
      (m.gitCommit ? ` · commit ${m.gitCommit}${m.gitDirty ? ' (dirty)' : ''}` : ''),
  );
  lines.push(
    `${s.duration}s measured after ${s.warmup}s warm-up per row · ${s.connections} connections · pipelining ${s.pipelining} · ${s.keys} keys rotated · load generator on the same machine · load average at start ${m.loadAvg1mAtStart}`,
    '',
  );
  lines.push('| engine | scenario | conns | req/s | p50 ms | p99 ms | errors | non-2xx | ratio | of | RSS MB |');
  lines.push('|---|---|--:|--:|--:|--:|--:|--:|--:|---|--:|');
  const c = report.ceiling;
  if (c.status === 'ok') {
    lines.push(
      `| ceiling | bare Fastify \`GET /\` | ${s.connections} | ${fmt(c.reqPerSec)} | ${fmtMs(c.latencyP50Ms)} | ${fmtMs(c.latencyP99Ms)} | ${fmt(c.errors)} | ${fmt(c.non2xx)} | 100% | ceiling | ${fmt(c.rssMb, 0)} |`,
    );
  } else {
    lines.push(`| ceiling | bare Fastify \`GET /\` | | failed | | | | | | | |`);
  }
  const notes: string[] = [];
  for (const engine of report.engines) {
    if (engine.status !== 'ok' && engine.scenarios.length === 0) {
      lines.push(`| ${engine.engine} | — ${engine.status} | | | | | | | | | |`);
    }
    const ref = engine.writeReference;
    if (ref) {
      lines.push(
        ref.status === 'ok'
          ? `| ${engine.engine} | write reference: ${ref.kind} | ${ref.clients} | ${fmt(ref.tps)} tps | | | | | 100% | ${ref.kind} | |`
          : `| ${engine.engine} | write reference: ${ref.kind} | | ${ref.status} | | | | | | | |`,
      );
      if (ref.note) notes.push(`- ${engine.engine} write reference (${ref.kind}, ${ref.durationS}s): ${ref.note}`);
    }
    for (const row of engine.scenarios) {
      const label = `${row.name} \`${row.method} ${row.path}\``;
      if (row.status !== 'ok') {
        lines.push(`| ${engine.engine} | ${label} | | failed | | | | | | | ${fmt(row.rssMb, 0)} |`);
      } else {
        lines.push(
          `| ${engine.engine} | ${label} | ${fmt(row.connections)} | ${fmt(row.reqPerSec)} | ${fmtMs(row.latencyP50Ms)} | ${fmtMs(row.latencyP99Ms)} | ${fmt(row.errors)} | ${fmt(row.non2xx)} | ${fmtPct(row.ratio ?? row.ratioToCeiling)} | ${row.reference ?? 'ceiling'} | ${fmt(row.rssMb, 0)} |`,
        );
      }
      if (row.note) notes.push(`- ${engine.engine} / ${row.name}: ${row.note}`);
    }
    if (engine.status === 'ok' || engine.scenarios.length > 0) {
      notes.push(
        `- ${engine.engine}: ready in ${fmt(engine.readyMs)} ms, ${engine.keysCreated ?? 0} keys; service RSS ${fmt(engine.rssReadyMb, 0)} MB when ready (idle), ${fmt(engine.rssMb, 0)} MB at the end, peak ${fmt(engine.peakRssMb, 0)} MB`,
      );
    }
    if (engine.note) notes.push(`- ${engine.engine} (${engine.status}): ${engine.note}`);
  }
  if (c.note) notes.push(`- ceiling: ${c.note}`);
  if (notes.length > 0) lines.push('', ...notes);
  lines.push(
    '',
    '`ratio` = the row\'s req/s ÷ its reference measured in the same run (`of`): the bare-Fastify ceiling for reads, the engine\'s write reference (pgbench TPC-B-like tps on PostgreSQL, the raw PGlite transaction loop on PGlite) for trade writes (see bench/README.md). Latency has 1 ms resolution. RSS = the server process\'s VmRSS right after the row\'s measured run.',
    '',
  );
  return lines.join('\n');
}
