/**
 * Child processes for the bench: spawn in their own process group, wait for
 * readiness, sample RSS, and always kill them (normal end, error, Ctrl-C, crash).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

export interface Child {
  label: string;
  proc: ChildProcess;
  pid: number;
  logFile: string;
  /** set once the process has exited */
  exit: { code: number | null; signal: NodeJS.Signals | null } | null;
  exited: Promise<void>;
}

const live = new Set<Child>();

function killGroup(child: Child, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid, signal); // the whole group (detached => child is group leader)
  } catch {
    try {
      child.proc.kill(signal);
    } catch {
      /* already gone */
    }
  }
}

// Last resort: whatever happens to the harness, no child survives it.
process.on('exit', () => {
  for (const child of live) killGroup(child, 'SIGKILL');
});

/** Starts `command args` with its stdout/stderr going straight to `logFile` (no load on our event loop). */
export function startChild(label: string, command: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; logFile: string }): Child {
  const fd = openSync(opts.logFile, 'a');
  let proc: ChildProcess;
  try {
    proc = spawn(command, args, { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['ignore', fd, fd] });
  } finally {
    closeSync(fd);
  }
  if (proc.pid === undefined) throw new Error(`${label}: could not start ${command}`);
  let resolveExited!: () => void;
  const child: Child = {
    label,
    proc,
    pid: proc.pid,
    logFile: opts.logFile,
    exit: null,
    exited: new Promise<void>((resolve) => (resolveExited = resolve)),
  };
  live.add(child);
  proc.on('exit', (code, signal) => {
    child.exit = { code, signal };
    live.delete(child);
    // the group may still hold grandchildren (e.g. if started through npx)
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      /* none left */
    }
    resolveExited();
  });
  proc.on('error', () => {
    live.delete(child);
    resolveExited();
  });
  return child;
}

/** SIGTERM, then SIGKILL after `graceMs`. Resolves once the child is gone. */
export async function stopChild(child: Child, graceMs = 5000): Promise<void> {
  if (child.exit) return;
  killGroup(child, 'SIGTERM');
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
  await child.exited;
  clearTimeout(timer);
}

export async function stopAllChildren(): Promise<void> {
  await Promise.all([...live].map((child) => stopChild(child, 3000)));
}

export function logTail(child: Child, maxChars = 4000): string {
  try {
    const text = readFileSync(child.logFile, 'utf8');
    return text.length > maxChars ? `…${text.slice(-maxChars)}` : text;
  } catch {
    return '(no log)';
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Polls `url` until it answers 200; fails early if the child exits, or after `timeoutMs`. */
export async function waitReady(child: Child, url: string, timeoutMs = 60_000): Promise<number> {
  const started = Date.now();
  let last = 'no answer yet';
  while (Date.now() - started < timeoutMs) {
    if (child.exit) {
      throw new Error(
        `${child.label} exited before it was ready (code ${child.exit.code}, signal ${child.exit.signal}). Log tail:\n${logTail(child)}`,
      );
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      const text = await response.text();
      if (response.status === 200) return Date.now() - started;
      last = `HTTP ${response.status} ${text.slice(0, 200)}`;
    } catch (error) {
      last = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${child.label} not ready after ${timeoutMs / 1000}s at ${url} (last: ${last}). Log tail:\n${logTail(child)}`);
}

export interface Memory {
  /** resident set size now, MB */
  rssMb: number;
  /** peak resident set size since start (VmHWM), MB */
  peakRssMb: number;
}

/** Linux only: reads VmRSS / VmHWM from /proc/<pid>/status. null elsewhere or if the process is gone. */
export function sampleMemory(pid: number): Memory | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => {
      const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
      return match ? Number(match[1]) : NaN;
    };
    const rss = kb('VmRSS');
    const hwm = kb('VmHWM');
    if (!Number.isFinite(rss)) return null;
    return { rssMb: round(rss / 1024, 1), peakRssMb: round(hwm / 1024, 1) };
  } catch {
    return null;
  }
}

export function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
