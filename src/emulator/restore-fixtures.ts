// The jobs of restore-test's faults and formats (issue 24 §5), added with the
// emulator's archiveFaults option (`backupctl emulator --archive-faults`).
// Each job has one completed backup whose file is a real dump served byte for
// byte (src/emulator/fixtures/restore, made by make-restore-fixtures.mjs with
// the real pg_dump and mariadb-dump; manifest.json there says what each holds).
import { requireFixture, restoreFixture } from './real-dumps.js';
import { jobSlug } from './routes/backups.js';
import { type JobRecord, type Store } from './store.js';
import { MINUTE, createRng, fileStamp, nameSeed } from './util.js';
import { fixtureBackup, fixtureJob } from './verify-fixtures.js';

const POSTGRESQL = 3;
const MYSQL = 2;
/** A SQLite database is backed up as a file: the files recipe, its path the database's. */
const FILES = 1;

/** Job name -> the fixture its backup serves. */
export const RESTORE_FIXTURE_JOBS: ReadonlyArray<{ job: string; recipe: number; fixture: string; suffix: string; kind: 'postgres' | 'mysql' | 'sqlite' }> = [
  // pg_dump -Fc: restored with pg_restore.
  { job: 'pg custom', recipe: POSTGRESQL, fixture: 'shop.pgdump', suffix: '.dump', kind: 'postgres' },
  // A mariadb-dump file that restores (the demo's own MySQL job is encrypted).
  { job: 'mariadb dump', recipe: MYSQL, fixture: 'shop.mysql.sql.gz', suffix: '.sql.gz', kind: 'mysql' },
  // A dump that breaks halfway: a syntax error at a known line.
  { job: 'broken dump', recipe: POSTGRESQL, fixture: 'broken.pg.sql.gz', suffix: '.sql.gz', kind: 'postgres' },
  // A table that ends up with fewer rows than its COPY block holds.
  { job: 'missing rows', recipe: POSTGRESQL, fixture: 'missing-rows.pg.sql.gz', suffix: '.sql.gz', kind: 'postgres' },
  // OWNER TO and GRANT to a role the target lacks: passes, with warnings.
  { job: 'needs role', recipe: POSTGRESQL, fixture: 'needs-role.pg.sql.gz', suffix: '.sql.gz', kind: 'postgres' },
  // The same faults in a MySQL dump: a syntax error at a known line, and --databases (CREATE DATABASE, USE).
  { job: 'broken mysql', recipe: MYSQL, fixture: 'broken.mysql.sql.gz', suffix: '.sql.gz', kind: 'mysql' },
  { job: 'two databases', recipe: MYSQL, fixture: 'two-databases.mysql.sql.gz', suffix: '.sql.gz', kind: 'mysql' },
  // SQLite (make-sqlite-fixtures.mjs, with the real sqlite3): the database file, its .dump, and the file with a damaged page.
  { job: 'sqlite file', recipe: FILES, fixture: 'shop.sqlite', suffix: '.sqlite', kind: 'sqlite' },
  { job: 'sqlite dump', recipe: FILES, fixture: 'shop.sqlite.sql.gz', suffix: '.sql.gz', kind: 'sqlite' },
  { job: 'sqlite damaged', recipe: FILES, fixture: 'damaged.sqlite', suffix: '.sqlite', kind: 'sqlite' },
];

/** Where the hostile SQLite dumps aim (test/e2e/restore-hostile-sqlite.test.ts makes the folder and looks in it afterwards). */
export const SQLITE_ATTACK_DIR = '/tmp/backupctl-sqlite-attack';

const DUMP_HEAD = 'PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\nCREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT);\nINSERT INTO notes VALUES(1,\'kept\');\n';

/** The backups of job "sqlite hostile": sqlite3 .dump texts that try to reach beyond their database, by file name. */
export const SQLITE_HOSTILE_DUMPS: Readonly<Record<string, string>> = {
  // Another database file, written through ATTACH.
  attach: `${DUMP_HEAD}ATTACH DATABASE '${SQLITE_ATTACK_DIR}/attached.db' AS loot;\nCREATE TABLE loot.stolen(body TEXT);\nINSERT INTO loot.stolen SELECT body FROM notes;\nCOMMIT;\n`,
  // Native code, loaded by a function call.
  'load-extension': `${DUMP_HEAD}SELECT load_extension('${SQLITE_ATTACK_DIR}/evil.so');\nCOMMIT;\n`,
  // A trigger that writes a file (the sqlite3 shell's writefile) on every insert, then the insert that fires it.
  'trigger-writefile': `${DUMP_HEAD}CREATE TRIGGER leak AFTER INSERT ON notes BEGIN SELECT writefile('${SQLITE_ATTACK_DIR}/leaked.txt', NEW.body); END;\nINSERT INTO notes VALUES(2,'secret');\nCOMMIT;\n`,
  // A view, then a copy of the whole database to another file.
  'view-vacuum-into': `${DUMP_HEAD}CREATE VIEW everything AS SELECT * FROM notes;\nVACUUM INTO '${SQLITE_ATTACK_DIR}/copy.db';\nCOMMIT;\n`,
};

function addSqliteHostileJob(store: Store, now: number): void {
  const rng = createRng(nameSeed('sqlite hostile'));
  const job = fixtureJob(store, rng, 'sqlite hostile', now, { recipe_id: FILES, config: { path: '/srv/app/notes.sqlite' } });
  Object.entries(SQLITE_HOSTILE_DUMPS).forEach(([name, text], i) => {
    const at = now - (70 + i) * MINUTE;
    fixtureBackup(store, rng, job, at, { name: `${name}-${fileStamp(at)}.sql`, size: Buffer.byteLength(text), content: { text } });
  });
}

/** Adds the jobs; none when the fixtures are not beside the code (an installed package leaves them out: they are for tests). */
export function addRestoreFixtureJobs(store: Store, now: number): void {
  if (!restoreFixture(RESTORE_FIXTURE_JOBS[0]!.fixture)) return;
  RESTORE_FIXTURE_JOBS.forEach((spec, i) => {
    const rng = createRng(nameSeed(spec.job));
    const config: JobRecord['config'] = spec.kind === 'postgres' ? { postgres_username: 'app', postgres_database: 'shop' } : spec.kind === 'mysql' ? { mysql_username: 'app', mysql_database: 'shop' } : { path: '/srv/app/shop.sqlite' };
    const job = fixtureJob(store, rng, spec.job, now, { recipe_id: spec.recipe, config });
    const at = now - (50 + i) * MINUTE;
    const content = { ...(spec.kind === 'sqlite' ? {} : { kind: spec.kind }), fixture: spec.fixture };
    fixtureBackup(store, rng, job, at, { name: `${jobSlug(job)}-${fileStamp(at)}${spec.suffix}`, size: requireFixture(spec.fixture).length, content });
  });
  addSqliteHostileJob(store, now);
}
