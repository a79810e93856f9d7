// A MariaDB for the hostile-dump tests (issue 28): the server of
// startTestMariadb with, beside its confined "tester", a privileged "boss"
// (ALL ON *.* WITH GRANT OPTION: a --into URL as powerful as root), a "wide"
// user that cannot create logins but reaches another schema, and a "victim"
// database whose table t holds 3 rows: what a tampered dump must never touch.
import path from 'node:path';
import { startTestMariadb, type TestServer, type TestServerOptions } from './restore.js';

export interface HostileMariadb extends TestServer {
  sock: string;
  /** --into as a user that may CREATE USER and GRANT everything. */
  bossUrl: string;
  bossPassword: string;
  /** --into as a user that cannot create logins and can write victim.*. */
  wideUrl: string;
  /** victim.t: ids, the users named like pattern, a global variable. */
  victimIds(): string;
  users(like: string): string[];
  schemas(like: string): string[];
  global(name: string): string;
}

export async function startHostileMariadb(password: string, opts: TestServerOptions = {}): Promise<HostileMariadb> {
  const s = await startTestMariadb(password, opts);
  const sock = path.join(s.dir, 'sock');
  const bossPassword = 'Boss-s3cret-pw';
  s.admin(
    [
      `CREATE USER boss@localhost IDENTIFIED BY '${bossPassword}'`,
      'GRANT ALL PRIVILEGES ON *.* TO boss@localhost WITH GRANT OPTION',
      "CREATE USER wide@localhost IDENTIFIED BY 'Wide-pw-1'",
      'GRANT ALL ON `backupctl\\_restore\\_%`.* TO wide@localhost',
      'GRANT SELECT, INSERT, DELETE, DROP ON victim.* TO wide@localhost',
      'CREATE DATABASE victim',
      'CREATE TABLE victim.t (id INT PRIMARY KEY)',
      'INSERT INTO victim.t VALUES (1), (2), (3)',
    ].join(';\n') + ';\n',
  );
  return {
    ...s,
    sock,
    bossPassword,
    bossUrl: `mysql://boss:${bossPassword}@localhost/?socket=${sock}`,
    wideUrl: `mysql://wide:Wide-pw-1@localhost/?socket=${sock}`,
    victimIds: () => {
      try {
        return s.admin('SELECT GROUP_CONCAT(id ORDER BY id) FROM victim.t').trim();
      } catch {
        return 'gone';
      }
    },
    users: (like) => s.admin(`SELECT CONCAT(User, '@', Host) FROM mysql.user WHERE User LIKE '${like}'`).split('\n').filter(Boolean),
    schemas: (like) => s.admin(`SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE '${like}'`).split('\n').filter(Boolean),
    global: (name) => s.admin(`SELECT @@GLOBAL.${name}`).trim(),
  };
}
