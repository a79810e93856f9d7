// The unit tests only, for `npm run mutate` (stryker.config.mjs): the e2e tests run the
// built CLI, which a mutant of src/ never reaches.
import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['test/unit/**/*.test.ts'],
    // The layout test reads the whole tree with madge: no mutant changes what it checks.
    exclude: ['test/unit/layers.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    maxWorkers: 1,
  },
});
