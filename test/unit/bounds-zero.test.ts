// A bound of 0 would refuse every zip (or every gzip) and make every verify fail:
// BACKUPCTL_VERIFY_MAX_*=0 is a configuration error naming the variable (exit 3), as
// "lots" is (issue 31: only "lots" was tested, so accepting 0 went unseen).
import { describe, expect, it } from 'vitest';
import { boundsFromEnv } from '../../src/pipeline/bounds.js';
import { ConfigError, ExitCode } from '../../src/errors.js';

describe('the bomb bounds from the environment', () => {
  it.each(['BACKUPCTL_VERIFY_MAX_ZIP_ENTRIES', 'BACKUPCTL_VERIFY_MAX_INFLATED', 'BACKUPCTL_VERIFY_MAX_RATIO', 'BACKUPCTL_RESTORE_MAX_STATEMENT'])('%s=0 (and -1, lots) is refused, naming it', (name) => {
    for (const bad of ['0', '0GiB', '-1', 'lots']) {
      if (bad === '0GiB' && name !== 'BACKUPCTL_VERIFY_MAX_INFLATED' && name !== 'BACKUPCTL_RESTORE_MAX_STATEMENT') continue;
      let err: unknown;
      try {
        boundsFromEnv({ [name]: bad });
      } catch (e) {
        err = e;
      }
      expect(err, `${name}=${bad}`).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).exitCode).toBe(ExitCode.config);
      expect((err as Error).message).toContain(`${name}=${JSON.stringify(bad)} is not`);
    }
  });

  it('a positive value raises the bound', () => {
    expect(boundsFromEnv({ BACKUPCTL_VERIFY_MAX_ZIP_ENTRIES: '500000', BACKUPCTL_VERIFY_MAX_RATIO: '1000', BACKUPCTL_VERIFY_MAX_INFLATED: '2KiB', BACKUPCTL_RESTORE_MAX_STATEMENT: '256MiB' })).toMatchObject({
      maxZipEntries: 500_000,
      maxGzipRatio: 1000,
      maxInflatedBytes: 2048,
      maxStatement: 256 * 1024 * 1024,
    });
    // The statement reader's bound, unset: 64 MiB (restore-test's restore, verify's and restore-test's catalog).
    expect(boundsFromEnv({}).maxStatement).toBe(64 * 1024 * 1024);
  });
});
