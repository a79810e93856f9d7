// A bound of 0 would refuse every zip (or every gzip) and make every verify fail:
// BACKUPCTL_VERIFY_MAX_*=0 is a configuration error naming the variable (exit 3), as
// "lots" is (issue 31: only "lots" was tested, so accepting 0 went unseen).
import { describe, expect, it } from 'vitest';
import { boundsFromEnv, DEFAULT_BOUNDS, statementBoundRefusal } from '../../src/pipeline/bounds.js';
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

  // The survivors of `npm run mutate` on bounds.ts (issue 31).
  const refusal = (env: NodeJS.ProcessEnv) => {
    try {
      boundsFromEnv(env);
    } catch (e) {
      return (e as Error).message;
    }
    return undefined;
  };

  it('each variable names what it takes; a count is digits only (not 1e3, not 0x10)', () => {
    const hints: Record<string, string> = {
      BACKUPCTL_VERIFY_MAX_ZIP_ENTRIES: 'a whole number of entries (such as 500000)',
      BACKUPCTL_VERIFY_MAX_INFLATED: 'a size (such as 200GiB)',
      BACKUPCTL_VERIFY_MAX_RATIO: 'a whole number (such as 1000)',
      BACKUPCTL_RESTORE_MAX_ENTRIES: 'a whole number of entries (such as 500000)',
      BACKUPCTL_RESTORE_MAX_BYTES: 'a size (such as 200GiB)',
      BACKUPCTL_RESTORE_MAX_STATEMENT: 'a size (such as 256MiB)',
    };
    for (const [name, hint] of Object.entries(hints)) expect(refusal({ [name]: 'lots' })).toBe(`${name}="lots" is not ${hint} above 0`);
    for (const name of ['BACKUPCTL_VERIFY_MAX_ZIP_ENTRIES', 'BACKUPCTL_VERIFY_MAX_RATIO', 'BACKUPCTL_RESTORE_MAX_ENTRIES']) {
      for (const bad of ['1e3', '0x10', '12.5', '5 GiB']) expect(refusal({ [name]: bad }), `${name}=${bad}`).toContain('is not a whole number');
    }
  });

  it('restore-test\'s extraction bounds are read too; an empty value is the default; spaces around a value are trimmed', () => {
    expect(boundsFromEnv({ BACKUPCTL_RESTORE_MAX_ENTRIES: '7', BACKUPCTL_RESTORE_MAX_BYTES: '3MiB' })).toMatchObject({ maxExtractEntries: 7, maxExtractBytes: 3 * 1024 * 1024 });
    expect(boundsFromEnv({ BACKUPCTL_VERIFY_MAX_ZIP_ENTRIES: '', BACKUPCTL_RESTORE_MAX_BYTES: '' })).toEqual(DEFAULT_BOUNDS);
    expect(boundsFromEnv({ BACKUPCTL_VERIFY_MAX_ZIP_ENTRIES: ' 500000 ', BACKUPCTL_VERIFY_MAX_INFLATED: ' 2KiB\n' })).toMatchObject({ maxZipEntries: 500_000, maxInflatedBytes: 2048 });
  });

  it('the statement bound\'s refusal names the variable, its value and how to raise it', () => {
    expect(statementBoundRefusal(1024, 7)).toBe(
      'a statement, string, comment run or COPY line longer than 1024 characters (from line 7) is over the reader\'s bound: ' +
        'BACKUPCTL_RESTORE_MAX_STATEMENT=1024 (raise it, such as BACKUPCTL_RESTORE_MAX_STATEMENT=256MiB, for a dump that needs it)',
    );
  });
});
