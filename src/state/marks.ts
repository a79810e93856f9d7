// The marks store: what `verify` and `restore-test` concluded about each
// backup, on this machine. One JSON file in the state folder
// ($XDG_STATE_HOME/backupctl/marks.json, else ~/.local/state/backupctl/), mode
// 0600, written atomically under a lock; a broken file is reported and never
// overwritten.
//
// Keyed by the service (its base URL and the account the profile logs in as,
// see serviceKey) and then by backup id: a mark belongs to one backup of one
// service. `status`, `report` and `--check` judge the newest completed backup
// of a job by its own marks (src/fleet/marks.ts); a mark of an older backup is
// shown as such and never changes that verdict. Marks of another service
// (another emulator, another team) are never read.
//
// Each backup keeps, per kind of test (verify, restore_test):
//   last        the latest attempt, whatever its state;
//   conclusive  the latest attempt that looked at the bytes (any state but
//               not-tested): a network failure today does not erase what a
//               verify found yesterday.
// A not-tested attempt carries `since`: when the run of not-tested attempts of
// that backup began (status warns when a job stays untested too long).
//
// Other modules (anomalies, retention) may read it through MarksStore.open /
// ofJob / backup; only verify and restore-test write it (record).
//
// Older versions kept one mark per job (verify-ledger.json `jobs`,
// restore-tests.json). Those name no service and no backup, so they cannot be
// attributed: they are ignored (docs/status.md, "Marks"). The first verify of
// a backup makes its mark.
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../errors.js';

export const MARKS_FILE = 'marks.json';

/**
 * The words of a verdict, everywhere (table, JSON, Prometheus, Markdown, HTML):
 * - passed: the content was read and checked (or restored and counted);
 * - unchecked: only size and hash (encrypted without a key, a format not read);
 * - structure-only: parsed but not restored (a mongodump archive);
 * - failed: the bytes or the data are bad;
 * - not-tested: backupctl could not do the test (network, store, service, scratch server, no engine).
 */
export const MARK_STATES = ['passed', 'unchecked', 'structure-only', 'failed', 'not-tested'] as const;
export type MarkState = (typeof MARK_STATES)[number];
export const MARK_KINDS = ['verify', 'restore_test'] as const;
export type MarkKind = (typeof MARK_KINDS)[number];

export interface Mark {
  /** When the test ended (ISO 8601 UTC). */
  at: string;
  state: MarkState;
  /** Why: the first failure, what was not checked, or what kept the test from running. */
  reason: string | null;
  /** The exit code the run gave. */
  exit_code: number;
  /** A not-tested attempt: when this backup's run of not-tested attempts began. */
  since?: string;
  /** restore-test: recovery time (read and restore), rows and tables restored, the engine. */
  total_seconds?: number;
  rows?: number;
  tables?: number;
  engine?: string | null;
  /** restore-test --assert: each statement run in the restored data and whether its first cell was true (assure's validations). */
  assertions?: Array<{ sql: string; ok: boolean }>;
}

export interface KindMarks {
  last: Mark;
  conclusive: Mark | null;
}

export interface BackupMarks {
  job_id: string;
  /** The backup's created_at as the service sent it (for ordering and pruning). */
  created_at: string | null;
  verify?: KindMarks;
  restore_test?: KindMarks;
}

interface ServiceMarks {
  backups: Record<string, BackupMarks>;
}

interface MarksData {
  version: 1;
  services: Record<string, ServiceMarks>;
}

/** Marked backups kept per job and service: the newest by created_at (older ones are long expired). */
export const KEEP_PER_JOB = 200;

/**
 * The key of a service: its base URL and the account, which the profile
 * identifies by its token. Only a fingerprint of the token is kept (the first
 * 16 hex digits of its SHA-256), never the token. A new token for the same
 * team starts new marks.
 */
export function serviceKey(baseUrl: string, token: string | undefined): string {
  const url = baseUrl.trim().replace(/\/+$/, '');
  const account = token ? createHash('sha256').update(token).digest('hex').slice(0, 16) : 'no-token';
  return `${url} account:${account}`;
}

function empty(): MarksData {
  return { version: 1, services: {} };
}

async function readMarks(file: string): Promise<MarksData> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return empty();
    throw new ConfigError(`cannot read the marks ${file}: ${(err as Error).message}`);
  }
  try {
    const data = JSON.parse(text) as Partial<MarksData>;
    if (data?.version !== 1 || typeof data.services !== 'object' || data.services === null) throw new Error('not a marks file of version 1');
    return { version: 1, services: data.services };
  } catch (err) {
    throw new ConfigError(`the marks ${file} are broken (${(err as Error).message}); they were left as they are`, [
      '  Move the file aside to start new marks (what verify and restore-test found so far is then forgotten).',
    ]);
  }
}

const isMark = (m: unknown): m is Mark =>
  typeof m === 'object' && m !== null && typeof (m as Mark).at === 'string' && (MARK_STATES as readonly string[]).includes((m as Mark).state);

/** A backup's marks as stored, with anything unreadable left out. */
function cleanBackup(b: unknown): BackupMarks | undefined {
  if (typeof b !== 'object' || b === null) return undefined;
  const r = b as Record<string, unknown>;
  if (typeof r.job_id !== 'string') return undefined;
  const kind = (k: unknown): KindMarks | undefined => {
    const x = k as Partial<KindMarks> | undefined;
    if (!x || !isMark(x.last)) return undefined;
    return { last: x.last, conclusive: isMark(x.conclusive) ? x.conclusive : null };
  };
  return { job_id: r.job_id, created_at: typeof r.created_at === 'string' ? r.created_at : null, verify: kind(r.verify), restore_test: kind(r.restore_test) };
}

/** One backup's marks with its id. */
export interface MarkedBackup extends BackupMarks {
  backup_id: string;
}

/**
 * The newest time among a job's marks of one kind: of the last runs (`'last'`) or of the conclusive
 * ones (`'conclusive'`), and of one state only when `state` is given. What verify's and restore-test's
 * Prometheus series report as "last run" and "last success".
 */
export function newestMarkAt(marks: readonly MarkedBackup[], kind: MarkKind, which: keyof KindMarks, state?: MarkState): string | undefined {
  let best: string | undefined;
  for (const b of marks) {
    const m = b[kind]?.[which];
    if (!m || (state !== undefined && m.state !== state)) continue;
    if (best === undefined || m.at > best) best = m.at;
  }
  return best;
}

/** What is recorded for one backup by one run. */
export interface MarkInput {
  backupId: string;
  jobId: string;
  createdAt: string | null;
  mark: Mark;
}

/**
 * The marks of one service, whichever backend keeps them (src/state/open.ts picks one): this
 * folder's marks.json (MarksStore) or a PostgreSQL state the team shares (src/state/pg-marks.ts).
 * What is read is read once when opened; `record` writes through and updates what is read.
 */
export interface MarksState {
  readonly service: string;
  /** Where the marks are kept, for messages: a file, or a state URL without its password. */
  readonly where: string;
  backup(backupId: string): BackupMarks | undefined;
  ofJob(jobId: string): MarkedBackup[];
  /** Every marked backup of the service (assure status reads them all at once). */
  all(): MarkedBackup[];
  record(kind: MarkKind, inputs: readonly MarkInput[]): Promise<void>;
}

/**
 * One kind of a backup's marks after a new attempt: of two writers of the same mark, the newer `at`
 * wins (a late writer of an older attempt changes nothing it has not seen); a not-tested attempt
 * keeps the conclusive mark before it and says since when the backup went untested.
 */
export function mergeMark(prior: KindMarks | undefined, input: Mark): KindMarks {
  const mark = { ...input };
  if (prior && prior.last.at > mark.at) {
    const conclusive = mark.state !== 'not-tested' && (!prior.conclusive || prior.conclusive.at < mark.at) ? (delete mark.since, mark) : prior.conclusive;
    return { last: prior.last, conclusive };
  }
  if (mark.state === 'not-tested') mark.since = prior?.last.state === 'not-tested' ? (prior.last.since ?? prior.last.at) : mark.at;
  else delete mark.since;
  return { last: mark, conclusive: mark.state === 'not-tested' ? (prior?.conclusive ?? null) : mark };
}

/** Reads one backup's marks as stored (JSON from a file or a database row), anything unreadable left out. */
export function readBackupMarks(b: unknown): BackupMarks | undefined {
  return cleanBackup(b);
}

/** Two records of one kind of a backup's marks (from two states) as one: the newer last and the newer conclusive. */
export function mergeKinds(a: KindMarks | undefined, b: KindMarks): KindMarks {
  if (!a) return b;
  const last = a.last.at >= b.last.at ? a.last : b.last;
  const conclusive = !a.conclusive ? b.conclusive : !b.conclusive ? a.conclusive : a.conclusive.at >= b.conclusive.at ? a.conclusive : b.conclusive;
  return { last, conclusive };
}

/** One kind of one backup's marks of one service: what `state migrate` copies between states. */
export interface MarkRecord {
  service: string;
  backup_id: string;
  kind: MarkKind;
  job_id: string;
  created_at: string | null;
  marks: KindMarks;
}

/** Every mark of every service in a state folder. */
export async function readFolderMarks(dir: string): Promise<MarkRecord[]> {
  const data = await readMarks(path.join(dir, MARKS_FILE));
  const out: MarkRecord[] = [];
  for (const [service, s] of Object.entries(data.services)) {
    for (const [backupId, raw] of Object.entries(s?.backups ?? {})) {
      const b = cleanBackup(raw);
      if (!b) continue;
      for (const kind of MARK_KINDS) {
        const k = b[kind];
        if (k) out.push({ service, backup_id: backupId, kind, job_id: b.job_id, created_at: b.created_at, marks: k });
      }
    }
  }
  return out;
}

/** Merges marks into a state folder's marks.json (under its lock; the newer mark wins); the number written. */
export async function writeFolderMarks(dir: string, records: readonly MarkRecord[]): Promise<number> {
  await mkdir(dir, { recursive: true, mode: 0o700 }).catch((err: Error) => {
    throw new ConfigError(`cannot create the state folder ${dir}: ${err.message}`);
  });
  const file = path.join(dir, MARKS_FILE);
  const [{ withFileLock }, { writeFileAtomic }] = await Promise.all([import('../config/lock.js'), import('../output/output-file.js')]);
  return withFileLock(file, async () => {
    const current = await readMarks(file);
    for (const r of records) {
      const service = (current.services[r.service] ??= { backups: {} });
      const before = cleanBackup(service.backups[r.backup_id]);
      service.backups[r.backup_id] = { ...(before ?? {}), job_id: r.job_id, created_at: r.created_at ?? before?.created_at ?? null, [r.kind]: mergeKinds(before?.[r.kind], r.marks) };
    }
    for (const [, service] of Object.entries(current.services)) for (const job of new Set(records.map((r) => r.job_id))) prune(service, job);
    await writeFileAtomic(file, `${JSON.stringify(current, null, 1)}\n`, { mode: 0o600, failure: (err) => new ConfigError(`cannot write the marks ${file}: ${err.message}`) });
    return records.length;
  });
}

export class MarksStore implements MarksState {
  private constructor(
    readonly file: string,
    readonly service: string,
    private backups: Record<string, BackupMarks>,
  ) {}

  /** The marks of one service, from the state folder (none when the file does not exist). */
  static async open(dir: string, service: string): Promise<MarksStore> {
    const file = path.join(dir, MARKS_FILE);
    const data = await readMarks(file);
    return new MarksStore(file, service, Object.hasOwn(data.services, service) ? (data.services[service]?.backups ?? {}) : {});
  }

  /** The marks of one backup of this service. */
  backup(backupId: string): BackupMarks | undefined {
    return Object.hasOwn(this.backups, backupId) ? cleanBackup(this.backups[backupId]) : undefined;
  }

  get where(): string {
    return this.file;
  }

  all(): MarkedBackup[] {
    const found: MarkedBackup[] = [];
    for (const [id, raw] of Object.entries(this.backups)) {
      const b = cleanBackup(raw);
      if (b) found.push({ backup_id: id, ...b });
    }
    return found;
  }

  /** Every marked backup of a job, newest created first. */
  ofJob(jobId: string): MarkedBackup[] {
    const found: MarkedBackup[] = [];
    for (const [id, raw] of Object.entries(this.backups)) {
      const b = cleanBackup(raw);
      if (b && b.job_id === jobId) found.push({ backup_id: id, ...b });
    }
    return found.sort((a, b) => (b.created_at ?? '').localeCompare(a.created_at ?? ''));
  }

  /** Records the outcome of one kind of test for some backups: re-reads the file under its lock, renames a new file over it. */
  async record(kind: MarkKind, inputs: readonly MarkInput[]): Promise<void> {
    if (!inputs.length) return;
    const dir = path.dirname(this.file);
    await mkdir(dir, { recursive: true, mode: 0o700 }).catch((err: Error) => {
      throw new ConfigError(`cannot create the state folder ${dir}: ${err.message}`);
    });
    const [{ withFileLock }, { writeFileAtomic }] = await Promise.all([import('../config/lock.js'), import('../output/output-file.js')]);
    await withFileLock(this.file, async () => {
      const current = await readMarks(this.file);
      const service = (current.services[this.service] ??= { backups: {} });
      for (const input of inputs) {
        const before = cleanBackup(service.backups[input.backupId]);
        const next = mergeMark(before?.[kind], input.mark);
        service.backups[input.backupId] = { ...(before ?? {}), job_id: input.jobId, created_at: input.createdAt ?? before?.created_at ?? null, [kind]: next };
        prune(service, input.jobId);
      }
      await writeFileAtomic(this.file, `${JSON.stringify(current, null, 1)}\n`, {
        mode: 0o600,
        failure: (err) => new ConfigError(`cannot write the marks ${this.file}: ${err.message}`),
      });
      this.backups = service.backups;
    });
  }
}

/** Keeps the KEEP_PER_JOB newest marked backups of a job. */
function prune(service: ServiceMarks, jobId: string): void {
  const ofJob = Object.entries(service.backups).filter(([, b]) => b?.job_id === jobId);
  if (ofJob.length <= KEEP_PER_JOB) return;
  ofJob.sort(([, a], [, b]) => (b.created_at ?? '').localeCompare(a.created_at ?? ''));
  for (const [id] of ofJob.slice(KEEP_PER_JOB)) delete service.backups[id];
}
