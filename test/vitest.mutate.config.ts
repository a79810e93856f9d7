// The tests `npm run mutate` runs (stryker.config.mjs): the unit tests, in-process, where a
// mutant of src/ is seen. The e2e tests run the BUILT CLI (dist/) as a subprocess, which a
// mutant of src/ never reaches, so they are not here: the mutation score rests on test/unit.
// Left out as well, because they cannot see a mutant or would make each one cost minutes:
//   layers.test.ts       reads the whole tree with madge: no mutant changes what it checks;
//   registry.test.ts     reads dist/manifest.json, a build output (no dist/ in Stryker's sandbox);
//   demo-clock*.test.ts  sweep a week of the demo every 5 minutes (over two minutes): they
//                        touch the status rules, so every mutant there would run them;
//   fuzz-*.test.ts       property runs of the parser and the output (half a minute), far from the scope.
// Stryker's perTest coverage then runs, for each mutant, only the tests that reached it.
import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['test/unit/**/*.test.ts'],
    exclude: [
      'test/unit/layers.test.ts',
      'test/unit/registry.test.ts',
      'test/unit/demo-clock.test.ts',
      'test/unit/demo-clock-changes.test.ts',
      'test/unit/fuzz-bodies.test.ts',
      'test/unit/fuzz-argv.test.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    maxWorkers: 1,
  },
});
