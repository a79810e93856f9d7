// Backups that `verify` must judge: the demo's one corrupted backup, the
// "damaged files" job (one backup per planted fault) and the "big file" job of
// the benchmark. Added after the seed, so the seed's own ids and history stay
// as they are.
import { createHash } from 'node:crypto';
import { FILE_FAULTS, type FileFault } from './archives.js';
import { hostileLength, restoreHostileLength, type HostileKind, type RestoreHostileKind } from './hostile-archives.js';
import { fileContent } from './files.js';
import { jobSlug } from './routes/backups.js';
import { makeTags, type BackupRecord, type FileContent, type JobRecord, type Store } from './store.js';
import { MINUTE, createRng, fileStamp, nameSeed, uuidFrom, wholeSeconds, type Rng } from './util.js';

/** The demo job whose newest backup is damaged (a flipped byte: bit rot the service never noticed). */
export const CORRUPTED_DEMO_JOB = 'git server';

/** The demo's newest completed backup of CORRUPTED_DEMO_JOB gets a flipped byte in its archive. */
export function plantDemoCorruption(store: Store): void {
  const job = store.jobs.rows.find((j) => j.name === CORRUPTED_DEMO_JOB);
  if (!job) return;
  const newest = store.backupsOfJob(job.id).filter((b) => b.status === 'completed').at(-1);
  const file = newest?.files[0];
  if (file?.content) file.content = { ...file.content, fault: 'flipped-byte' };
}

/** A job of a fixture (no schedule, the first storage); a files job of /data unless `shape` says otherwise. */
export function fixtureJob(store: Store, rng: Rng, name: string, now: number, shape: { recipe_id?: number; config?: JobRecord['config'] } = {}): JobRecord {
  return store.jobs.insert({
    id: uuidFrom(rng),
    name,
    recipe_id: shape.recipe_id ?? 1,
    compute: { type: 'ss_agent' },
    config: shape.config ?? { root_path: '/data' },
    schedules: [],
    storage: store.storage.size ? [{ storage_id: store.storage.rows[0]!.id, priority: 1 }] : [],
    encryption_key_id: null,
    proxy_id: null,
    last_ran_at: now,
    created_at: wholeSeconds(now - 60 * MINUTE * 24),
    updated_at: wholeSeconds(now - 60 * MINUTE * 24),
  });
}

export type FixtureFile = { name: string; size: number; content: FileContent };

/** A completed manual backup of `job` made at `at` (started 5 s later, done after a minute) holding `file`. */
export function fixtureBackup(store: Store, rng: Rng, job: JobRecord, at: number, file: FixtureFile, more: { files?: FixtureFile[]; encryptionKey?: string } = {}): BackupRecord {
  return store.backups.insert({
    id: uuidFrom(rng),
    job_id: job.id,
    status: 'completed',
    tags: makeTags(['manual']),
    s3_directory: `backups/${jobSlug(job)}/${fileStamp(at)}`,
    created_at: wholeSeconds(at),
    started_at: wholeSeconds(at + 5_000),
    completed_at: wholeSeconds(at + 65_000),
    monitoring_available: true,
    encryption_key: more.encryptionKey ?? null,
    files: [file, ...(more.files ?? [])].map((f) => ({ id: uuidFrom(rng), ...f })),
  });
}

/** Which archive each planted fault damages. */
const FAULT_FILES: Record<(typeof FILE_FAULTS)[number], { kind: FileContent['kind']; suffix: string; size: number }> = {
  truncated: { kind: 'tar.gz', suffix: '.tar.gz', size: 48 * 1024 },
  'flipped-byte': { kind: 'tar.gz', suffix: '.tar.gz', size: 40 * 1024 },
  'bad-tar-header': { kind: 'tar.gz', suffix: '.tar.gz', size: 36 * 1024 },
  'no-end-marker': { kind: 'mysql', suffix: '.sql.gz', size: 24 * 1024 },
  'wrong-size': { kind: 'tar.gz', suffix: '.tar.gz', size: 32 * 1024 },
};

/** A job "damaged files": one completed backup per planted fault, an hour apart, newest last in FILE_FAULTS order. */
export function addDamagedFilesJob(store: Store, now: number): void {
  const rng = createRng(nameSeed('damaged files'));
  const job = fixtureJob(store, rng, 'damaged files', now);
  FILE_FAULTS.forEach((fault, i) => {
    const at = now - (FILE_FAULTS.length - i) * 60 * MINUTE;
    const { kind, suffix, size } = FAULT_FILES[fault];
    fixtureBackup(store, rng, job, at, { name: `${fault}-${fileStamp(at)}${suffix}`, size, content: { kind, fault } });
  });
}

/** A job "big file" whose one backup holds a .tar.gz of `bytes`, streamed by the files server. */
export function addBigFileJob(store: Store, now: number, bytes: number): void {
  const rng = createRng(nameSeed('big file'));
  const job = fixtureJob(store, rng, 'big file', now);
  const at = now - 30 * MINUTE;
  fixtureBackup(store, rng, job, at, { name: `big-file-${fileStamp(at)}.tar.gz`, size: bytes, content: { kind: 'tar.gz', streamed: true } });
}

/** The job of restore-test's `../` fault: its one backup is a valid .tar.gz holding an entry `../escaped-by-archive.txt`. */
export const UNSAFE_ARCHIVE_JOB = 'unsafe archive';

export function addUnsafeArchiveJob(store: Store, now: number): void {
  const rng = createRng(nameSeed(UNSAFE_ARCHIVE_JOB));
  const job = fixtureJob(store, rng, UNSAFE_ARCHIVE_JOB, now);
  const at = now - 45 * MINUTE;
  fixtureBackup(store, rng, job, at, { name: `unsafe-archive-${fileStamp(at)}.tar.gz`, size: 20 * 1024, content: { kind: 'tar.gz', fault: 'dotdot-entry' } });
}

/** restore-test's hostile archives (issue 28 §4, §6): job name -> what its one backup holds (src/emulator/archives.ts). */
export const HOSTILE_RESTORE_JOBS = {
  'tar bomb': 'tar-zeros',
  'many entries': 'tar-many',
  'dangling link chain': 'tar-dangling',
  'two-link chain': 'tar-chain',
} as const satisfies Record<string, RestoreHostileKind>;

export function addHostileRestoreJobs(store: Store, now: number): void {
  Object.entries(HOSTILE_RESTORE_JOBS).forEach(([name, kind], i) => {
    const rng = createRng(nameSeed(name));
    const job = fixtureJob(store, rng, name, now);
    const at = now - (40 - i) * MINUTE;
    fixtureBackup(store, rng, job, at, { name: `${jobSlug(job)}-${fileStamp(at)}.tar.gz`, size: restoreHostileLength(kind), content: { kind } });
  });
}

/**
 * A job "keyed files" whose backup records name an encryption key while the
 * bytes are plain (issue 23 finding 5: the bytes decide, not the record): a
 * .tar.gz with a flipped byte, then a whole mysqldump .sql.gz.
 */
export function addKeyedFilesJob(store: Store, now: number): void {
  const rng = createRng(nameSeed('keyed files'));
  const job = fixtureJob(store, rng, 'keyed files', now);
  const key = 'c2VhbGVkIGRhdGEga2V5IG9mIHRoZSBrZXllZCBmaWxlcyBqb2I=';
  const flippedAt = now - 120 * MINUTE;
  fixtureBackup(store, rng, job, flippedAt, { name: `keyed-flipped-${fileStamp(flippedAt)}.tar.gz`, size: 40 * 1024, content: { kind: 'tar.gz', fault: 'flipped-byte' } }, { encryptionKey: key });
  const plainAt = now - 60 * MINUTE;
  fixtureBackup(store, rng, job, plainAt, { name: `keyed-plain-${fileStamp(plainAt)}.sql.gz`, size: 24 * 1024, content: { kind: 'mysql' } }, { encryptionKey: key });
}

/**
 * A job "listed files" whose backups hold their own SHA256SUMS (issue 23
 * finding 6): the first lists its .tar.gz's real sha256, the second a hash of
 * other bytes (the archive was replaced by another valid one).
 */
export function addListedFilesJob(store: Store, now: number): void {
  const rng = createRng(nameSeed('listed files'));
  const job = fixtureJob(store, rng, 'listed files', now);
  for (const [i, agrees] of [true, false].entries()) {
    const at = now - (2 - i) * 60 * MINUTE;
    const archive: FixtureFile = { name: `listed-${agrees ? 'good' : 'replaced'}-${fileStamp(at)}.tar.gz`, size: 20 * 1024, content: { kind: 'tar.gz' } };
    const bytes = fileContent(job.id, { id: '', ...archive });
    const sha = createHash('sha256').update(agrees ? bytes : Buffer.concat([bytes, Buffer.from('other')])).digest('hex');
    const text = `${sha}  ./${archive.name}\n`;
    fixtureBackup(store, rng, job, at, archive, { files: [{ name: 'SHA256SUMS', size: text.length, content: { kind: 'checksums', text } }] });
  }
}

/**
 * A job "hostile archives" (issue 23 finding 7), one backup each, an hour
 * apart in this order: a zip whose 20,000 entries share one 8 MiB entry, a
 * gzip of 4 GiB of zeros (about 4 MB), and a zip of 2,000 MiB of zeros in
 * entries apart (not a bomb: it inflates, slowly).
 */
export const HOSTILE_KINDS: readonly HostileKind[] = ['zip-bomb', 'gzip-zeros', 'zip-zeros'];
export function addHostileArchivesJob(store: Store, now: number): void {
  const rng = createRng(nameSeed('hostile archives'));
  const job = fixtureJob(store, rng, 'hostile archives', now);
  HOSTILE_KINDS.forEach((kind, i) => {
    const at = now - (HOSTILE_KINDS.length - i) * 60 * MINUTE;
    const suffix = kind === 'gzip-zeros' ? '.gz' : '.zip';
    fixtureBackup(store, rng, job, at, { name: `${kind}-${fileStamp(at)}${suffix}`, size: hostileLength(kind), content: { kind } });
  });
}
