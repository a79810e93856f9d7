// The catalog (issue 33 §1): a fingerprint of every backup backupctl has read,
// kept per service and backup id in the state folder, so that `anomalies`,
// `ls`, `find` and `diff` answer without a second download.
//
//   <state>/catalog/<service>/<backup id>/fingerprint.json   the fingerprint (small)
//   <state>/catalog/<service>/<backup id>/<n>.ndjson.gz      a tar file's listing, sorted by path
//   <state>/catalog/<service>/acks.json                      changes accepted as the new normal (--ack)
//
// <service> is the base URL's host and a hash of the service key the marks use
// (src/state/marks.ts serviceKey: base URL and account): two services, two
// accounts (or the demo and a real account) never see each other's backups. Files are
// written atomically (a temporary name, then rename), mode 0600.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { serviceKey } from './marks.js';

const exists = (p: string) => stat(p).then(() => true, () => false);

export interface ArchiveStats {
  entries: number;
  files: number;
  dirs: number;
  links: number;
  /** Bytes of the regular files' content. */
  bytes: number;
  /** Regular files per extension ("" for none), lower case. */
  by_ext: Record<string, number>;
  /** Members whose first bytes were measured (those that should compress). */
  sampled: number;
  /** Of those, the ones whose sample looks random (≥ HIGH_ENTROPY bits a byte). */
  high_entropy: number;
  /** The first of them (at most LIST_MAX). */
  high_entropy_paths: string[];
  /** Members named as ransom notes are (at most LIST_MAX). */
  ransom_notes: string[];
  /** Onion addresses found in text members (at most LIST_MAX). */
  onions: Array<{ path: string; address: string }>;
}

export interface SqlStats {
  dialect: 'postgres' | 'mysql';
  /** Rows per table, as the dump names it ("public.orders"). */
  tables: Record<string, number>;
}

export interface FileFingerprint {
  name: string;
  /** Bytes as stored (before gunzip). */
  bytes: number;
  gzip: boolean;
  kind: 'tar' | 'sql' | 'zip' | 'other';
  archive?: ArchiveStats;
  sql?: SqlStats;
  /** The listing's file name in the backup's catalog folder (tar only). */
  listing?: string;
  /** Why the content was not (wholly) fingerprinted. */
  note?: string;
  /** Its bytes were encrypted and read without a way to decrypt them: nothing of its content is known. */
  encrypted?: boolean;
}

export interface BackupFingerprint {
  version: 1;
  backup_id: string;
  job_id: string | null;
  created_at: string | null;
  /** When backupctl read it, and with which command. */
  recorded_at: string;
  recorded_by: 'verify' | 'restore-test' | 'scan';
  /** What the read's checks said: passed (every file verified), unchecked, failed. */
  read_verdict: 'passed' | 'unchecked' | 'failed';
  /** Bytes of all files as stored. */
  size_bytes: number;
  /** completed_at - started_at of the record, in seconds (null when not stated). */
  duration_s: number | null;
  files: FileFingerprint[];
}

export interface Ack {
  backup_id: string;
  job_id: string;
  at: string;
  note: string | null;
}

/**
 * A service's folder name: "api.example.com-1a2b3c4d5e6f", the host and a hash
 * of the ONE service key (src/state/marks.ts serviceKey: the base URL and the
 * account the token logs in as). The catalog and the marks name a service alike.
 */
export function catalogFolder(baseUrl: string, token: string | undefined): string {
  return catalogFolderOf(serviceKey(baseUrl, token));
}

/** A service's folder name from its key (serviceKey: `<base URL> account:<fingerprint>`). */
export function catalogFolderOf(service: string): string {
  const url = service.replace(/ account:[^ ]*$/, '');
  return `${hostOf(url)}-${createHash('sha256').update(service).digest('hex').slice(0, 12)}`;
}

/** One listing file of a backup, as bytes (what `state migrate` copies). */
export interface ListingBytes {
  name: string;
  data: Buffer;
}

/**
 * The catalog of one service, whichever backend keeps it (src/state/open.ts picks one): this
 * folder's catalog/<service>/ (Catalog) or a PostgreSQL state the team shares (src/state/pg-catalog.ts).
 */
export interface CatalogState {
  /** The service key (src/state/marks.ts serviceKey). */
  readonly service: string;
  /** Where it is kept, for messages: a folder, or a state URL without its password. */
  readonly where: string;
  /** Where the listing of file number `index` of a backup is written while the backup is read. */
  listingPath(backupId: string, index: number): string;
  /** Records a fingerprint, with the listings its files name (written at listingPath). */
  save(fp: BackupFingerprint): Promise<void>;
  get(backupId: string): Promise<BackupFingerprint | undefined>;
  /** Every fingerprint of a job, oldest first (by created_at, then id). */
  ofJob(jobId: string): Promise<BackupFingerprint[]>;
  /** Every fingerprint of the service. */
  all(): Promise<BackupFingerprint[]>;
  /** The listing files of a backup (local files, read as streams), with the backup file each belongs to. */
  listings(fp: BackupFingerprint): Promise<Array<{ file: string; path: string }>>;
  remove(backupId: string): Promise<void>;
  acks(): Promise<Ack[]>;
  addAck(ack: Ack): Promise<void>;
  /** The bytes of a backup's listings (state migrate). */
  listingBytes(fp: BackupFingerprint): Promise<ListingBytes[]>;
  /** Records a fingerprint with its listings as bytes (state migrate). */
  put(fp: BackupFingerprint, listings: readonly ListingBytes[]): Promise<void>;
}

/** Sorts fingerprints oldest first (by created_at, then id). */
export function oldestFirst(fps: BackupFingerprint[]): BackupFingerprint[] {
  return fps.sort((a, b) => (a.created_at ?? '').localeCompare(b.created_at ?? '') || a.backup_id.localeCompare(b.backup_id));
}

/**
 * The folder name of versions before 0.1 kept the base URL alone (no account).
 * Such a folder is adopted by the first profile of that URL that opens the
 * catalog (Catalog.open): its fingerprints are the job's baseline, and many of
 * its backups may have expired since, so they could not be read again.
 */
export function legacyCatalogFolder(baseUrl: string): string {
  const normal = baseUrl.trim().replace(/\/+$/, '').toLowerCase();
  return `${hostOf(baseUrl)}-${createHash('sha256').update(normal).digest('hex').slice(0, 12)}`;
}

function hostOf(baseUrl: string): string {
  let host = 'service';
  try {
    host = new URL(baseUrl).host;
  } catch {
    /* the hash alone */
  }
  return host.replace(/[^A-Za-z0-9.-]/g, '_');
}

const SAFE_ID = /^[A-Za-z0-9._-]{1,100}$/;

async function writeAtomic(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.tmp-${process.pid}-${Date.now()}`;
  await writeFile(tmp, text, { mode: 0o600 });
  await rename(tmp, file);
}

export class Catalog implements CatalogState {
  readonly dir: string;
  readonly service: string;

  constructor(stateDir: string, baseUrl: string, token: string | undefined, service = serviceKey(baseUrl, token)) {
    this.service = service;
    this.dir = path.join(stateDir, 'catalog', catalogFolderOf(this.service));
  }

  /** The catalog of a service named by its key (state migrate), with no legacy folder adopted. */
  static ofService(stateDir: string, service: string): Catalog {
    return new Catalog(stateDir, '', undefined, service);
  }

  get where(): string {
    return this.dir;
  }

  /**
   * The catalog of a service, with the folder an older version kept for its
   * base URL alone moved in when this one has none yet (see legacyCatalogFolder).
   */
  static async open(stateDir: string, baseUrl: string, token: string | undefined): Promise<Catalog> {
    const catalog = new Catalog(stateDir, baseUrl, token);
    const legacy = path.join(stateDir, 'catalog', legacyCatalogFolder(baseUrl));
    if (legacy !== catalog.dir && !(await exists(catalog.dir)) && (await exists(legacy))) {
      try {
        await rename(legacy, catalog.dir);
      } catch {
        /* another process moved it first, or the folder cannot be moved: the catalog starts empty */
      }
    }
    return catalog;
  }

  /** The folder of one backup (its id checked: it names a folder). */
  backupDir(backupId: string): string {
    if (!SAFE_ID.test(backupId)) throw new Error(`not a backup id: ${JSON.stringify(backupId)}`);
    return path.join(this.dir, backupId);
  }

  /** Where the listing of file number `index` of a backup goes. */
  listingPath(backupId: string, index: number): string {
    return path.join(this.backupDir(backupId), `${index}.ndjson.gz`);
  }

  async save(fp: BackupFingerprint): Promise<void> {
    await writeAtomic(path.join(this.backupDir(fp.backup_id), 'fingerprint.json'), `${JSON.stringify(fp)}\n`);
  }

  async get(backupId: string): Promise<BackupFingerprint | undefined> {
    try {
      const fp = JSON.parse(await readFile(path.join(this.backupDir(backupId), 'fingerprint.json'), 'utf8')) as BackupFingerprint;
      return fp?.version === 1 ? fp : undefined;
    } catch {
      return undefined;
    }
  }

  /** Every fingerprint of a job, oldest first (by created_at, then id). */
  async ofJob(jobId: string): Promise<BackupFingerprint[]> {
    return oldestFirst((await this.all()).filter((fp) => fp.job_id === jobId));
  }

  async all(): Promise<BackupFingerprint[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return [];
    }
    const out: BackupFingerprint[] = [];
    for (const name of names) {
      if (!SAFE_ID.test(name) || name === 'acks.json') continue;
      const fp = await this.get(name);
      if (fp) out.push(fp);
    }
    return oldestFirst(out);
  }

  /** The listing files of a backup, with the backup file each belongs to. */
  async listings(fp: BackupFingerprint): Promise<Array<{ file: string; path: string }>> {
    return this.listingFiles(fp);
  }

  private listingFiles(fp: BackupFingerprint): Array<{ file: string; path: string; name: string }> {
    return fp.files.flatMap((f) => (f.listing && SAFE_ID.test(f.listing) ? [{ file: f.name, name: f.listing, path: path.join(this.backupDir(fp.backup_id), f.listing) }] : []));
  }

  async listingBytes(fp: BackupFingerprint): Promise<ListingBytes[]> {
    const out: ListingBytes[] = [];
    for (const l of this.listingFiles(fp)) {
      const data = await readFile(l.path).catch(() => undefined);
      if (data) out.push({ name: l.name, data });
    }
    return out;
  }

  async put(fp: BackupFingerprint, listings: readonly ListingBytes[]): Promise<void> {
    for (const l of listings) {
      if (!SAFE_ID.test(l.name)) continue;
      const file = path.join(this.backupDir(fp.backup_id), l.name);
      await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      const tmp = `${file}.tmp-${process.pid}-${Date.now()}`;
      await writeFile(tmp, l.data, { mode: 0o600 });
      await rename(tmp, file);
    }
    await this.save(fp);
  }

  async remove(backupId: string): Promise<void> {
    await rm(this.backupDir(backupId), { recursive: true, force: true });
  }

  async acks(): Promise<Ack[]> {
    try {
      const data = JSON.parse(await readFile(path.join(this.dir, 'acks.json'), 'utf8')) as { acks?: Ack[] };
      return Array.isArray(data.acks) ? data.acks : [];
    } catch {
      return [];
    }
  }

  async addAck(ack: Ack): Promise<void> {
    const acks = (await this.acks()).filter((a) => a.backup_id !== ack.backup_id);
    acks.push(ack);
    await writeAtomic(path.join(this.dir, 'acks.json'), `${JSON.stringify({ acks }, null, 2)}\n`);
  }
}
