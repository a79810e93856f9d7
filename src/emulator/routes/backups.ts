// Backups: the backups of a job (list, start, delete all) and the single-backup
// endpoints the real service has beyond the interface (get, delete, download).
import { listPage, type ListDef } from '../listing.js';
import { recipeById } from '../recipes.js';
import { conflictError, noContent, ok, okData, type Reply } from '../reply.js';
import { renderBackup } from '../render.js';
import type { RouteContext, RouteDef } from '../routing.js';
import type { Runtime } from '../runtime.js';
import type { ArchiveKind } from '../archives.js';
import { applyRetention } from '../retention-apply.js';
import { makeTags, type BackupRecord, type FileContent, type FileRecord, type JobRecord, type TagName, type Tags } from '../store.js';
import { fileStamp, randInt, randomBytesFrom, uuidFrom, type Rng } from '../util.js';
import { sealSecret, type SealedSecret } from '../demo-key.js';
import { Validation } from '../validate.js';

export const BACKUP_STATUSES = ['pending', 'running', 'expired', 'failed', 'completed', 'completed_with_errors'] as const;

const backupList: ListDef<BackupRecord> = {
  filters: [
    { param: 'status', kind: 'enum', values: BACKUP_STATUSES, matches: (b, status) => b.status === status },
    { param: 'tags', kind: 'tags', get: (b) => b.tags },
    { param: 'started_since', kind: 'since', get: (b) => b.started_at },
    { param: 'completed_since', kind: 'since', get: (b) => b.completed_at },
  ],
  sort: {
    id: (b) => b.id,
    // Backups have no name of their own; their directory is named after the job and time.
    name: (b) => b.s3_directory,
    created_at: (b) => b.created_at,
    started_at: (b) => b.started_at,
    completed_at: (b) => b.completed_at,
  },
};

export function jobSlug(job: JobRecord): string {
  return job.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'job';
}

/** The archive each recipe writes (archives.ts makes it). */
const ARCHIVE_OF_RECIPE: Record<string, ArchiveKind> = {
  files: 'tar.gz',
  mysql: 'mysql',
  postgresql: 'postgres',
  mongodb: 'mongo',
  website: 'zip',
};

/**
 * The files a finished backup holds: the recipe's archive, plus a checksum
 * list for file backups. `sizeOf` draws each length; the files server makes
 * real archives of exactly that length, encrypted when the job has a key.
 */
export function makeBackupFiles(rng: Rng, job: JobRecord, at: number, sizeOf: (rng: Rng) => number, sealed?: SealedSecret | null): FileRecord[] {
  const recipe = recipeById(job.recipe_id);
  const stamp = fileStamp(at);
  // An encrypted job's files: the real archive, sealed with the backup's secret (demo-key.ts), of a length that
  // seals exactly (CBC: a multiple of 16). Without the secret (a job given a key later): noise behind "Salted__".
  const content = (kind: ArchiveKind): FileContent => (job.encryption_key_id === null ? { kind } : sealed ? { kind, sealed } : { kind: 'encrypted' });
  const fit = (size: number) => (sealed && sealed.variant !== 3 ? Math.max(48, size - (size % 16)) : size);
  const files: FileRecord[] = [
    {
      id: uuidFrom(rng),
      name: `${jobSlug(job)}-${stamp}${recipe?.fileSuffix ?? '.tar.gz'}`,
      size: fit(sizeOf(rng)),
      content: content(ARCHIVE_OF_RECIPE[recipe?.slug ?? 'files'] ?? 'tar.gz'),
    },
  ];
  if (recipe?.slug === 'files') {
    files.push({ id: uuidFrom(rng), name: `${jobSlug(job)}-${stamp}.sha256`, size: fit(65 * randInt(rng, 3, 12)), content: content('checksums') });
  }
  return files;
}

/**
 * The record's encryption_key when the job has an encryption key: the backup's secret sealed with the demo
 * key pair's public half (src/emulator/demo-key.ts, demo only), and the secret its files are sealed with.
 */
export function sealBackupKey(rng: Rng, job: JobRecord): { encryption_key: string; secret: SealedSecret } | null {
  return job.encryption_key_id === null ? null : sealSecret(randomBytesFrom(rng, 48));
}

/** How a started backup ends: jobs named with "fail" always fail. */
function outcomeFor(rt: Runtime, job: JobRecord): string {
  return /fail/i.test(job.name) ? 'failed' : rt.backupOutcome;
}

/** Creates a pending backup that turns running after one tick and ends after two. */
export function startBackup(rt: Runtime, job: JobRecord, tags: Tags): BackupRecord {
  const { backups, jobs } = rt.store;
  const now = rt.now();
  // Drawn in the order they always were: the id, then the sealed key.
  const id = rt.uuid();
  const sealed = sealBackupKey(rt.rng, job);
  const backup = backups.insert({
    id,
    job_id: job.id,
    status: 'pending',
    tags,
    s3_directory: `backups/${jobSlug(job)}/${fileStamp(now)}`,
    created_at: now,
    started_at: null,
    completed_at: null,
    monitoring_available: false,
    encryption_key: sealed?.encryption_key ?? null,
    files: [],
  });
  jobs.patch(job, { last_ran_at: now });
  rt.later(rt.tickMs, () => {
    if (backups.get(backup.id)) backups.patch(backup, { status: 'running', started_at: rt.now() });
  });
  rt.later(rt.tickMs * 2, () => {
    if (!backups.get(backup.id)) return;
    const status = outcomeFor(rt, job);
    const finishedAt = rt.now();
    backups.patch(backup, {
      status,
      started_at: backup.started_at ?? finishedAt,
      completed_at: finishedAt,
      monitoring_available: true,
      files: status === 'failed' ? [] : makeBackupFiles(rt.rng, job, backup.created_at, (rng) => randInt(rng, 2_000, 400_000), sealed?.secret),
    });
    // A run's backup counts once it completes: the job's retention is applied then (docs/retention.md, A6).
    if (status !== 'failed' && !backup.tags.manual) applyRetention(rt.store, job, backup);
  });
  return backup;
}

/** Tags of a start request: none given means a manual backup; is_manual alone leaves the rest off. */
function readStartTags(v: Validation): { tags: Tags; answer: Record<string, boolean> } {
  const names: TagName[] = ['manual', 'hourly', 'daily', 'weekly', 'monthly'];
  const given = names.map((name) => [name, v.boolean(`is_${name}`)] as const);
  const anyGiven = given.some(([, value]) => value !== undefined);
  const set = given.filter(([name, value]) => value === true || (!anyGiven && name === 'manual')).map(([name]) => name);
  const tags = makeTags(set);
  return { tags, answer: Object.fromEntries(names.map((n) => [`is_${n}`, tags[n]])) };
}

function findBackup(c: RouteContext): BackupRecord {
  return c.rt.store.backups.require(c.params.id!);
}

export const backupRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/v1/jobs/{job_id}/backups',
    handler: (c) => {
      const job = c.rt.store.jobs.require(c.params.job_id!);
      return listPage(c, c.rt.store.backups, backupList, (b) => renderBackup(c.rt, b, { tags: 'boolean' }), {
        key: `list-of-job:${job.id}`,
        test: (b) => b.job_id === job.id,
      });
    },
  },
  {
    method: 'POST',
    path: '/v1/jobs/{job_id}/backups/start',
    handler: (c): Reply => {
      const job = c.rt.store.jobs.require(c.params.job_id!);
      const v = new Validation(c.input);
      const { tags, answer } = readStartTags(v);
      v.check();
      const backup = startBackup(c.rt, job, tags);
      // 202 without a data wrapper; clients read backup_id from the top level.
      return {
        status: 202,
        body: {
          status: 'starting',
          backup_id: backup.id,
          url: `${c.rt.baseUrl}/app/jobs/${job.id}/backups/${backup.id}`,
          config: [],
          tags: answer,
        },
      };
    },
  },
  {
    method: 'DELETE',
    path: '/v1/jobs/{job_id}/backups',
    handler: (c) => {
      const job = c.rt.store.jobs.require(c.params.job_id!);
      const count = c.rt.store.backups.removeWhere((b) => b.job_id === job.id);
      return ok({ message: `${count} backups scheduled for deletion.` });
    },
  },
  {
    method: 'GET',
    path: '/v1/backups/{id}',
    handler: (c) => okData(renderBackup(c.rt, findBackup(c), { tags: 'boolean' })),
  },
  {
    method: 'DELETE',
    path: '/v1/backups/{id}',
    handler: (c) => {
      c.rt.store.backups.remove(findBackup(c));
      return noContent();
    },
  },
  {
    method: 'POST',
    path: '/v1/backups/{id}/download',
    handler: (c) => {
      const backup = findBackup(c);
      if (backup.files.length === 0) throw conflictError('backup', `The backup has no files to download (status ${backup.status}).`);
      return okData(Object.fromEntries(backup.files.map((f) => [f.name, c.rt.downloadUrl(backup.id, f)])));
    },
  },
];
