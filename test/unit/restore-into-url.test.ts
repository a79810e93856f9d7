// The --into URL (issue 28 §8, issue 29): a password with an unencoded "@",
// "/", "?" or "%" is read whole, so no part of it lands in the host (and from
// there in an error, the ledger or --json); describeRaw never shows any of
// it; a socket URL keeps its port; and the environment of --exec loses every
// database password and backupctl secret.
import { describe, expect, it } from 'vitest';
import { describeRaw, parseIntoUrl, scrubbedEnv } from '../../src/restore/servers/url.js';

describe('parseIntoUrl', () => {
  it('an unencoded @ in the password: the whole password, the host after the last @', () => {
    const u = parseIntoUrl('mysql://root:p@ss@word@db.example:3307/x');
    expect(u).toMatchObject({ dialect: 'mysql', user: 'root', password: 'p@ss@word', host: 'db.example', port: 3307, database: 'x' });
  });

  it('"/", "?" and "#" in the password do not become the path, the query or a fragment', () => {
    expect(parseIntoUrl('mysql://root:a/b#c@localhost/?socket=/tmp/my.sock')).toMatchObject({ user: 'root', password: 'a/b#c', socket: '/tmp/my.sock' });
    expect(parseIntoUrl('postgres://u:x?y@h/db')).toMatchObject({ user: 'u', password: 'x?y', host: 'h', database: 'db' });
  });

  it('a raw % (not an escape) is kept as given, an escape is decoded', () => {
    expect(parseIntoUrl('mysql://u:100%@h/').password).toBe('100%');
    expect(parseIntoUrl('mysql://u:p%40x@h/').password).toBe('p@x');
  });

  it('a socket URL keeps its port (issue 29)', () => {
    expect(parseIntoUrl('postgres://u@/db?host=/run/postgresql&port=5433')).toMatchObject({ socketDir: '/run/postgresql', port: 5433, database: 'db' });
    expect(parseIntoUrl('mysql://u@localhost:3307/?socket=/tmp/s.sock')).toMatchObject({ socket: '/tmp/s.sock', port: 3307 });
  });

  it('errors never quote the password', () => {
    for (const raw of ['mysql://u:se@cr/et@h:notaport/', 'mysql://u:se@cr/et@h/?port=x', 'ftp://u:se@cr/et@h/']) {
      let msg = '';
      try {
        parseIntoUrl(raw);
      } catch (e) {
        msg = (e as Error).message;
      }
      expect(msg, raw).not.toBe('');
      for (const part of ['se@cr', 'cr/et', 'se', 'et@']) expect(msg, raw).not.toContain(part);
    }
  });
});

describe('describeRaw', () => {
  it('shows the user and the host, never any part of the password', () => {
    expect(describeRaw('mysql://root:p@ss@word@db.example:3307/x')).toBe('mysql://root:***@db.example:3307/x');
    expect(describeRaw('postgres://u@h/db')).toBe('postgres://u@h/db');
    expect(describeRaw('not a url p@ss')).toBe('(not a URL)');
  });
});

describe('scrubbedEnv (the environment of --exec)', () => {
  it('drops PGPASSWORD, MYSQL_PWD, BACKUPCTL_*, and any variable holding the --into password', () => {
    const env = scrubbedEnv(
      { PATH: '/bin', HOME: '/root', PGPASSWORD: 'a', MYSQL_PWD: 'b', PGPASSFILE: '/x', BACKUPCTL_TOKEN: 't', BACKUPCTL_RESTORE_URL: 'mysql://u:zz@h/', DATABASE_URL: 'mysql://u:Into-pw-1@h/', OTHER: 'fine' },
      ['Into-pw-1'],
    );
    expect(env).toEqual({ PATH: '/bin', HOME: '/root', OTHER: 'fine' });
  });
});
