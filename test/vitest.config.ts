import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { fileURLToPath } from 'node:url';
import { relative } from 'node:path';
import { FILE_SECONDS, UNKNOWN_FILE_SECONDS } from './durations.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Longest first, from test/durations.ts (measured), so that the last files to start are short
 * ones and the two workers end together. A fresh clone has no vitest cache, and vitest's own
 * order there is by file size: hostile-pg.test.ts (the longest file, about a fifth of the CPU
 * of the suite) then started in the middle and ran alone at the end.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = (f: TestSpecification) => FILE_SECONDS[relative(root, f.moduleId).replaceAll('\\', '/')] ?? UNKNOWN_FILE_SECONDS;
    return [...files].sort((a, b) => seconds(b) - seconds(a));
  }
}

export default defineConfig({
  root,
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores; one queue for both projects (the same maxWorkers keeps them in one group, so the
    // sequencer's order holds across them: the long e2e files start first, unit files fill the gaps).
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          // Subprocess-heavy (the built CLI, servers, shells, chromium): a process of its own per file.
          pool: 'forks',
        },
      },
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // In-process tests: worker threads start faster than processes.
          pool: process.env.UNIT_POOL === 'threads' ? 'threads' : 'forks',
        },
      },
    ],
  },
});
