/** Start-up progress: one line per phase, with the seconds since the process began starting. */
export function startupProgress(say: (line: string) => void, startedAtMs = performance.now()): (phase: string) => void {
  return (phase) => say(`  [${((performance.now() - startedAtMs) / 1000).toFixed(1)} s] ${phase.trim()}`);
}
