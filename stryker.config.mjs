// Mutation testing (issue 31, "Tests that could not catch what they guard"): Stryker changes
// one thing in the source at a time (a condition, an operator, a literal) and runs the tests
// that reach it; a mutant no test kills is a one-line bug the suite would not see.
//
//   npm run mutate                                  the whole scope below (about 30-40 min on 2 cores)
//   npm run mutate -- --mutate src/backups/status.ts   one file
//
// Not in CI and not in `npm test`. The tests: test/vitest.mutate.config.ts, the unit tests only
// (the e2e tests run the built CLI, which a mutant of src/ never reaches). The report:
// reports/mutation/mutation.html, and the score per file on stdout.
//
// The scope: the modules where a wrong result hurts a backup owner most: what a status means and
// which backup is the newest success (backups/), which backups verify and restore-test read
// (pipeline/select.ts), what a file is (pipeline/kinds.ts), the bounds against a hostile backup
// (pipeline/bounds.ts), the token kept out of --debug (http/redact.ts), the stated sizes a
// transfer is held to (util/stated-size.ts), the marks status and report judge by
// (state/marks.ts), the anomaly verdicts (catalog/anomalies.ts), the retention forecast
// (retention/keep-rules.ts). docs/development.md "Mutation testing" gives the score of each.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  // MUTATE_TESTS=test/unit/a.test.ts,test/unit/b.test.ts: only those test files (a file's own tests;
  // a mutant then costs seconds, not the whole unit suite's start-up): test/vitest.mutate-quick.config.ts.
  vitest: { configFile: process.env.MUTATE_TESTS ? 'test/vitest.mutate-quick.config.ts' : 'test/vitest.mutate.config.ts' },
  mutate: [
    'src/backups/*.ts',
    'src/pipeline/bounds.ts',
    'src/pipeline/kinds.ts',
    'src/pipeline/select.ts',
    'src/http/redact.ts',
    'src/util/stated-size.ts',
    'src/state/marks.ts',
    'src/catalog/anomalies.ts',
    'src/retention/keep-rules.ts',
  ],
  // Each mutant runs only the tests that reached it in the dry run.
  coverageAnalysis: 'perTest',
  reporters: ['clear-text', 'progress', 'html', 'json'],
  // MUTATE_REPORT=reports/mutation-<name>.json keeps the JSON of one run beside another's.
  jsonReporter: { fileName: process.env.MUTATE_REPORT ?? 'reports/mutation/mutation.json' },
  // Two cores shared with others: one mutant at a time (run it under `nice`: the npm script does).
  concurrency: 1,
  timeoutMS: 30_000,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
