// The MySQL/MariaDB --into engine's quoting (issues 42.1, 45.2) and the disk budget's setting (45.5).
import { describe, expect, it } from 'vitest';
import { connectionHost, grantSchema } from '../../src/restore/sql/mysql.js';
import { DEFAULT_MAX_DISK, maxDiskFromEnv, overBudget } from '../../src/restore/disk-budget.js';

describe('connectionHost: the host of USER(), after its LAST @', () => {
  it.each([
    ['bars@localhost', 'localhost'],
    ['ad@min@127.0.0.1', '127.0.0.1'],
    ['%x@10.0.0.7', '10.0.0.7'],
    ['ad_min@db_host', 'db_host'],
    ['', 'localhost'],
  ])('%s -> %s', (user, host) => expect(connectionHost(user)).toBe(host));

  it('a host that is a pattern is refused, never used for a login', () => {
    expect(() => connectionHost('x@%')).toThrow(/a pattern/);
  });
});

describe('grantSchema: _ and % are literal in a grant', () => {
  it('escapes them (and the escape), in backticks', () => {
    expect(grantSchema('backupctl_restore_ab12')).toBe('`backupctl\\_restore\\_ab12`');
    expect(grantSchema('a%b\\c`d')).toBe('`a\\%b\\\\c``d`');
  });
  it('MySQL 8 with partial_revokes reads the name literally: as it is', () => {
    expect(grantSchema('backupctl_restore_ab12', true)).toBe('`backupctl_restore_ab12`');
  });
});

describe('BACKUPCTL_RESTORE_MAX_DISK', () => {
  it('a size, 10 GiB by default; anything else is a configuration error naming it', () => {
    expect(maxDiskFromEnv({})).toBe(DEFAULT_MAX_DISK);
    expect(maxDiskFromEnv({ BACKUPCTL_RESTORE_MAX_DISK: '2GiB' })).toBe(2 * 1024 ** 3);
    for (const bad of ['0', '-1GiB', 'lots']) expect(() => maxDiskFromEnv({ BACKUPCTL_RESTORE_MAX_DISK: bad })).toThrow(/BACKUPCTL_RESTORE_MAX_DISK=.* is not a size/);
  });
  it('over the budget: not-tested, unless the data is more than 20 times the text read (a dump that makes data of its own)', () => {
    expect(overBudget(3 * 1024 ** 3, 2 * 1024 ** 3, 1024 ** 3, 'db').hostile).toBe(false);
    expect(overBudget(3 * 1024 ** 3, 2 * 1024 ** 3, 4096, 'db').hostile).toBe(true);
  });
});
