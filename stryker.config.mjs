// Mutation testing of the domain, pipeline and restore folders (issue 31: "a mutation tool
// on the domain, pipeline and restore folders, run by `npm run mutate`, not in CI").
// Stryker changes one thing in the source at a time (a condition, an operator, a literal)
// and runs the unit tests: a mutant no test kills is a one-line bug the suite would not see.
// Only test/unit runs (test/vitest.mutate.config.ts): the e2e tests run the BUILT CLI, which a
// mutant of src/ does not reach. Narrow it with `npm run mutate -- --mutate src/pipeline/kinds.ts`.
// The report: reports/mutation/mutation.html, and the score on stdout.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'test/vitest.mutate.config.ts' },
  mutate: ['src/backups/**/*.ts', 'src/pipeline/**/*.ts', 'src/restore/**/*.ts'],
  coverageAnalysis: 'perTest',
  reporters: ['clear-text', 'progress', 'html'],
  // Two cores, shared: one mutant at a time is slow but does not starve the machine.
  concurrency: 1,
  timeoutMS: 60_000,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
