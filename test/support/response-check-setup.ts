import { afterAll, afterEach } from 'vitest';
import { responseCheckStats } from '../../src/http/plugins/response-check.js';

// Every test app validates its responses against the published schemas (createTestApp sets
// checkResponses). A violation fails the test that caused it; counts reach the summary reporter.
declare module 'vitest' {
  interface TaskMeta {
    responsesValidated?: number;
  }
}

let reported = 0;

function takeCount(): number {
  const n = responseCheckStats.validated - reported;
  reported = responseCheckStats.validated;
  return n;
}

function throwViolations(): void {
  const found = responseCheckStats.violations.splice(0);
  if (found.length === 0) return;
  const lines = found.map((v) => `${v.route} → ${v.status}: ${v.errors.join('; ')}`);
  throw new Error(`response does not match its published schema:\n${[...new Set(lines)].join('\n')}`);
}

afterEach((context) => {
  context.task.meta.responsesValidated = takeCount();
  throwViolations();
});

afterAll((suite) => {
  suite.meta.responsesValidated = (suite.meta.responsesValidated ?? 0) + takeCount();
  throwViolations();
});
