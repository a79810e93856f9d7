// The jobs of restore-test's faults and formats (issue 24 §5), added with the
// emulator's archiveFaults option (`backupctl emulator --archive-faults`).
// Each job has one completed backup whose file is a real dump served byte for
// byte (src/emulator/fixtures/restore, made by make-restore-fixtures.mjs with
// the real pg_dump and mariadb-dump; manifest.json there says what each holds).
import { requireFixture, restoreFixture } from './real-dumps.js';
import { jobSlug } from './routes/backups.js';
import { makeTags, type Store } from './store.js';
import { MINUTE, createRng, fileStamp, nameSeed, uuidFrom, wholeSeconds } from './util.js';

const POSTGRESQL = 3;
const MYSQL = 2;

/** Job name -> the fixture its backup serves. */
export const RESTORE_FIXTURE_JOBS: ReadonlyArray<{ job: string; recipe: number; fixture: string; suffix: string; kind: 'postgres' | 'mysql' }> = [
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
];

/** Adds the jobs; none when the fixtures are not beside the code (an installed package leaves them out: they are for tests). */
export function addRestoreFixtureJobs(store: Store, now: number): void {
  if (!restoreFixture(RESTORE_FIXTURE_JOBS[0]!.fixture)) return;
  RESTORE_FIXTURE_JOBS.forEach((spec, i) => {
    const rng = createRng(nameSeed(spec.job));
    const job = store.jobs.insert({
      id: uuidFrom(rng),
      name: spec.job,
      recipe_id: spec.recipe,
      compute: { type: 'ss_agent' },
      config: spec.kind === 'postgres' ? { postgres_username: 'app', postgres_database: 'shop' } : { mysql_username: 'app', mysql_database: 'shop' },
      schedules: [],
      storage: store.storage.size ? [{ storage_id: store.storage.rows[0]!.id, priority: 1 }] : [],
      encryption_key_id: null,
      proxy_id: null,
      last_ran_at: now,
      created_at: wholeSeconds(now - 60 * MINUTE * 24),
      updated_at: wholeSeconds(now - 60 * MINUTE * 24),
    });
    const at = now - (50 + i) * MINUTE;
    store.backups.insert({
      id: uuidFrom(rng),
      job_id: job.id,
      status: 'completed',
      tags: makeTags(['manual']),
      s3_directory: `backups/${jobSlug(job)}/${fileStamp(at)}`,
      created_at: wholeSeconds(at),
      started_at: wholeSeconds(at + 5_000),
      completed_at: wholeSeconds(at + 65_000),
      monitoring_available: true,
      encryption_key: null,
      files: [{ id: uuidFrom(rng), name: `${jobSlug(job)}-${fileStamp(at)}${spec.suffix}`, size: requireFixture(spec.fixture).length, content: { kind: spec.kind, fixture: spec.fixture } }],
    });
  });
}
