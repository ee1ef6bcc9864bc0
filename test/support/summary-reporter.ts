import type { Reporter, File, Task } from 'vitest';

/** Prints one plain closing line, "N passed, N failed, N skipped", that CI reads. */
export default class SummaryReporter implements Reporter {
  onFinished(files: File[] = []): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    let validated = 0;
    const visit = (task: Task): void => {
      validated += task.meta?.responsesValidated ?? 0;
      if (task.type === 'suite') {
        task.tasks.forEach(visit);
        return;
      }
      if (task.mode === 'skip' || task.mode === 'todo') counts.skipped += 1;
      else if (task.result?.state === 'pass') counts.passed += 1;
      else counts.failed += 1;
    };
    for (const file of files) {
      visit(file);
      // A file that failed to load has no tasks but must still count as a failure.
      if (file.result?.state === 'fail' && file.tasks.length === 0) counts.failed += 1;
    }
    process.stdout.write(`\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
    // Responses checked against their route's published schema (test/support/response-check-setup.ts).
    process.stdout.write(`${validated} responses validated against their published schema\n`);
  }
}
