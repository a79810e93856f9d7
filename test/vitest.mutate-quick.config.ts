// `MUTATE_TESTS=<test files, comma-separated> npm run mutate -- --mutate <file>` (stryker.config.mjs):
// Stryker with only those test files, in-process. For one module and the tests written for it, a
// mutant costs a few seconds instead of the whole unit suite's start-up; the score is then the
// score against those tests (a mutant they miss may be caught elsewhere: the full run says).
import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: { include: (process.env.MUTATE_TESTS ?? '').split(',').filter(Boolean), testTimeout: 30_000, maxWorkers: 1 },
});
