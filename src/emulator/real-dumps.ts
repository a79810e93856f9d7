// The real dumps the emulator serves (issue 24 §5): pg_dump and mariadb-dump
// output made once against real servers by src/scripts/make-restore-fixtures.mjs
// and committed in src/emulator/fixtures/restore (the build copies them to
// dist/restore-fixtures). The demo's PostgreSQL and MySQL backups carry the
// real shop dump; the restore faults (emulator --archive-faults) are served
// byte for byte.
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

const cache = new Map<string, Buffer | null>();

/** The bytes of a fixture file, or null when it is not beside the code (a single executable has no dist/). */
export function restoreFixture(name: string): Buffer | null {
  let bytes = cache.get(name);
  if (bytes === undefined) {
    const at = [`./fixtures/restore/${name}`, `./restore-fixtures/${name}`].map((p) => new URL(p, import.meta.url)).find((u) => existsSync(u));
    bytes = at ? readFileSync(at) : null;
    cache.set(name, bytes);
  }
  return bytes;
}

/** The same, or an error naming what is missing (the fault jobs need their exact bytes). */
export function requireFixture(name: string): Buffer {
  const bytes = restoreFixture(name);
  if (!bytes) throw new Error(`emulator: the restore fixture ${name} is missing (src/emulator/fixtures/restore; npm run build copies it to dist/restore-fixtures)`);
  return bytes;
}

/** The demo's real dump of this kind, decompressed: a pg_dump plain file or a mariadb-dump file of the shop database (550 rows). */
export function realDump(kind: 'postgres' | 'mysql'): Buffer | null {
  const gz = restoreFixture(kind === 'postgres' ? 'shop.pg.sql.gz' : 'shop.mysql.sql.gz');
  return gz ? gunzipSync(gz) : null;
}
