import { configDefaults, defineConfig } from 'vitest/config';

// Every test runs on embedded PGlite; the database-backed ones run again on the real
// PostgreSQL named by TEST_DATABASE_URL when it is set (CI sets it when PostgreSQL answers).
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

export default defineConfig({
  test: {
    pool: 'forks',
    poolOptions: { forks: { maxForks: 3, minForks: 1 } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The plain "N passed, N failed" line lets CI read the result of any run.
    reporters: ['default', './test/support/summary-reporter.ts'],
    setupFiles: ['./test/support/response-check-setup.ts'],
    globalSetup: ['./test/support/database-templates-setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'pglite',
          include: ['test/**/*.test.ts'],
          // PostgreSQL-only tests (*.pg.test.ts) would only count as skipped here when the postgres project runs them.
          exclude: [...configDefaults.exclude, ...(onPostgres ? ['test/**/*.pg.test.ts'] : [])],
          env: { TEST_DATABASE_URL: '' },
        },
      },
      ...(onPostgres
        ? [{ extends: true, test: { name: 'postgres', include: ['test/http/**/*.test.ts', 'test/service/**/*.test.ts'] } }]
        : []),
    ],
  },
});
