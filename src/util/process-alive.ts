import { readFileSync } from 'node:fs';

/** Whether process `pid` still runs (someone else's counts; a zombie does not). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, someone else's
  }
  return !isZombie(pid);
}

/**
 * A killed process stays visible as a zombie until its parent reaps it, with every file already
 * closed: a restart right after a SIGKILL must not wait for that (Linux /proc; elsewhere false).
 */
export function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) S ...": the state follows the last ')' (comm may hold spaces and parentheses)
    return /^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}
