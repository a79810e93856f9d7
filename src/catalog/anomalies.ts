// Which backup is clean (issue 33 §2): each backup's fingerprint against a
// baseline of the job's earlier clean backups (median and spread: one bad
// night does not move it), plus fixed rules of the kind Veeam and Commvault
// use: a share of files turned random, many files renamed or gone, a ransom
// note, an onion address, a table that lost most of its rows or vanished, a
// size or entry count far outside the job's history. Pure but for reading
// listings (streamed, bounded memory). docs/anomalies.md explains each signal.
import { UsageError } from '../errors.js';
import type { BackupFingerprint } from '../state/catalog.js';
import { comparePaths, readListing, type ListingEntry } from './listing.js';

export interface Thresholds {
  /** high-entropy: a share of the sampled members whose first bytes look random. */
  entropy_share: number;
  /** ... and at least this many of them. */
  entropy_min: number;
  /** renamed: at least this many files renamed since the last clean backup (name + a new extension)... */
  rename_min: number;
  /** ... or this share of its files (with at least 10). */
  rename_share: number;
  /** vanished: this share of the last clean backup's files gone (with at least 10). */
  vanish_share: number;
  /** table-shrunk: a table that lost this share of its baseline rows (baseline of at least 10 rows). */
  table_loss: number;
  /** size / entries: further from the baseline median than this many robust deviations... */
  spread_k: number;
  /** ... and than this share of the median (a history that grows a few % a night raises nothing). */
  change_floor: number;
  /** Earlier clean backups in the baseline (the newest ones). */
  baseline: number;
}

export const DEFAULT_THRESHOLDS: Thresholds = {
  entropy_share: 0.2,
  entropy_min: 5,
  rename_min: 50,
  rename_share: 0.2,
  vanish_share: 0.3,
  table_loss: 0.5,
  spread_k: 6,
  change_floor: 0.5,
  baseline: 10,
};

/** The settings of the thresholds: BACKUPCTL_ANOMALY_<NAME> (upper case). */
export const THRESHOLD_SETTINGS: Record<keyof Thresholds, { env: string; min: number; max: number; integer?: boolean }> = {
  entropy_share: { env: 'BACKUPCTL_ANOMALY_ENTROPY_SHARE', min: 0.01, max: 1 },
  entropy_min: { env: 'BACKUPCTL_ANOMALY_ENTROPY_MIN', min: 1, max: 1e9, integer: true },
  rename_min: { env: 'BACKUPCTL_ANOMALY_RENAME_MIN', min: 1, max: 1e9, integer: true },
  rename_share: { env: 'BACKUPCTL_ANOMALY_RENAME_SHARE', min: 0.01, max: 1 },
  vanish_share: { env: 'BACKUPCTL_ANOMALY_VANISH_SHARE', min: 0.01, max: 1 },
  table_loss: { env: 'BACKUPCTL_ANOMALY_TABLE_LOSS', min: 0.01, max: 1 },
  spread_k: { env: 'BACKUPCTL_ANOMALY_SPREAD_K', min: 1, max: 100 },
  change_floor: { env: 'BACKUPCTL_ANOMALY_CHANGE_FLOOR', min: 0.01, max: 100 },
  baseline: { env: 'BACKUPCTL_ANOMALY_BASELINE', min: 3, max: 1000, integer: true },
};

/** The thresholds: the defaults, each overridden by its BACKUPCTL_ANOMALY_* variable (a bad value is exit 2). */
export function thresholdsFrom(env: NodeJS.ProcessEnv): Thresholds {
  const t: Thresholds = { ...DEFAULT_THRESHOLDS };
  for (const [key, s] of Object.entries(THRESHOLD_SETTINGS) as Array<[keyof Thresholds, (typeof THRESHOLD_SETTINGS)[keyof Thresholds]]>) {
    const raw = env[s.env]?.trim();
    if (raw === undefined || raw === '') continue;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < s.min || n > s.max || (s.integer && !Number.isInteger(n))) {
      throw new UsageError(`invalid value "${raw}" for ${s.env}: must be ${s.integer ? 'a whole number' : 'a number'} from ${s.min} to ${s.max} (default ${DEFAULT_THRESHOLDS[key]})`);
    }
    t[key] = n;
  }
  return t;
}

export type Signal =
  | 'ransom-note'
  | 'onion-address'
  | 'high-entropy'
  | 'renamed'
  | 'vanished'
  | 'new-extension'
  | 'table-shrunk'
  | 'table-vanished'
  | 'size'
  | 'entries';

export interface Finding {
  signal: Signal;
  message: string;
  /** The numbers, paths and baseline behind it. */
  evidence: Record<string, unknown>;
}

export interface BackupAnomalies {
  backup_id: string;
  created_at: string | null;
  /** clean: nothing found; anomalous: a finding not acknowledged; acknowledged: accepted with --ack; unchecked: the read did not pass (no content to judge). */
  verdict: 'clean' | 'anomalous' | 'acknowledged' | 'unchecked';
  findings: Finding[];
  /** How many earlier clean backups the baseline held. */
  baseline_size: number;
  /** The newest clean backup before this one. */
  last_clean: { id: string; created_at: string | null } | null;
  /** The acknowledgement, when there is one. */
  ack?: { at: string; note: string | null };
  /** unchecked because its files are encrypted and were read without a key. */
  encrypted?: true;
}

export function median(xs: number[]): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Median absolute deviation, scaled to a standard deviation of normal data. */
export function mad(xs: number[]): number {
  const m = median(xs);
  return 1.4826 * median(xs.map((x) => Math.abs(x - m)));
}

/** What changed between two listings (sorted streams): counts, renames by suffix, per-extension losses. */
export interface ListingChange {
  added: number;
  removed: number;
  changed: number;
  renamed: number;
  renamed_examples: string[];
  removed_examples: string[];
  /** Files of the older listing. */
  before_files: number;
}

const RENAME_WINDOW = 10_000;

/** Compares two sorted listings in one pass, holding at most RENAME_WINDOW removed paths. */
export async function compareListings(older: AsyncIterable<ListingEntry>, newer: AsyncIterable<ListingEntry>): Promise<ListingChange> {
  const out: ListingChange = { added: 0, removed: 0, changed: 0, renamed: 0, renamed_examples: [], removed_examples: [], before_files: 0 };
  const recentRemoved = new Set<string>();
  const renamedFrom = new Set<string>();
  const remember = (p: string) => {
    recentRemoved.add(p);
    if (recentRemoved.size > RENAME_WINDOW) recentRemoved.delete(recentRemoved.values().next().value as string);
  };
  const isRename = (p: string): string | undefined => {
    // "report.doc" -> "report.doc.locked": the name with one more extension; the sorted order puts it just after.
    // The dot of the file's own name: "etc/foo.d/hosts" is no rename of "etc/foo".
    const dot = p.lastIndexOf('.');
    if (dot <= p.lastIndexOf('/') + 1) return undefined;
    const base = p.slice(0, dot);
    return recentRemoved.has(base) ? base : undefined;
  };
  for await (const [a, b] of mergeJoin(older, newer)) {
    if (a && a.type === 'f') out.before_files++;
    if (a && !b) {
      if (a.type === 'f') {
        out.removed++;
        remember(a.path);
      }
    } else if (!a && b) {
      if (b.type !== 'f') continue;
      const from = isRename(b.path);
      if (from && !renamedFrom.has(from)) {
        renamedFrom.add(from);
        out.renamed++;
        out.removed--;
        recentRemoved.delete(from);
        if (out.renamed_examples.length < 10) out.renamed_examples.push(`${from} -> ${b.path}`);
      } else out.added++;
    } else if (a && b && a.type === 'f' && b.type === 'f' && (a.crc !== b.crc || a.size !== b.size)) out.changed++;
  }
  // Examples of files gone (not renamed): the first ones still remembered.
  for (const p of recentRemoved) {
    if (out.removed_examples.length >= 10) break;
    out.removed_examples.push(p);
  }
  return out;
}

/** Walks two sorted listings together: [a, b] for a path in both, [a, null] only in the older, [null, b] only in the newer. */
export async function* mergeJoin(
  older: AsyncIterable<ListingEntry>,
  newer: AsyncIterable<ListingEntry>,
): AsyncGenerator<[ListingEntry | null, ListingEntry | null]> {
  const ia = older[Symbol.asyncIterator]();
  const ib = newer[Symbol.asyncIterator]();
  let a = await ia.next();
  let b = await ib.next();
  while (!a.done || !b.done) {
    if (b.done || (!a.done && comparePaths(a.value.path, b.value.path) < 0)) {
      yield [a.value as ListingEntry, null];
      a = await ia.next();
    } else if (a.done || comparePaths(a.value.path, b.value.path) > 0) {
      yield [null, b.value];
      b = await ib.next();
    } else {
      yield [a.value, b.value];
      a = await ia.next();
      b = await ib.next();
    }
  }
}

/** The entries of a backup's listings in path order; with several archives, each path is prefixed by its file's name. */
export async function* backupListing(listings: Array<{ file: string; path: string }>): AsyncGenerator<ListingEntry> {
  // By the prefix each path gets ("db.tar/" after "db.tar.1/"), not by the bare name: sorted by name, db.tar's
  // paths came before db.tar.1's although "db.tar/x" > "db.tar.1/x", and the merge then paired the wrong paths.
  const sorted = [...listings].sort((x, y) => comparePaths(`${x.file}/`, `${y.file}/`));
  const prefix = sorted.length > 1;
  for (const l of sorted) {
    for await (const e of readListing(l.path)) yield prefix ? { ...e, path: `${l.file}/${e.path}` } : e;
  }
}

const archiveOf = (fp: BackupFingerprint) => {
  const archives = fp.files.filter((f) => f.archive);
  if (!archives.length) return undefined;
  const sum = { entries: 0, files: 0, sampled: 0, high_entropy: 0, by_ext: {} as Record<string, number>, high_entropy_paths: [] as string[], ransom_notes: [] as string[], onions: [] as Array<{ path: string; address: string }> };
  for (const f of archives) {
    const a = f.archive!;
    sum.entries += a.entries;
    sum.files += a.files;
    sum.sampled += a.sampled;
    sum.high_entropy += a.high_entropy;
    for (const [ext, n] of Object.entries(a.by_ext)) sum.by_ext[ext] = (sum.by_ext[ext] ?? 0) + n;
    sum.high_entropy_paths.push(...a.high_entropy_paths);
    sum.ransom_notes.push(...a.ransom_notes);
    sum.onions.push(...a.onions);
  }
  return sum;
};

const tablesOf = (fp: BackupFingerprint): Record<string, number> | undefined => {
  const sql = fp.files.filter((f) => f.sql);
  if (!sql.length) return undefined;
  const out: Record<string, number> = {};
  for (const f of sql) for (const [t, n] of Object.entries(f.sql!.tables)) out[t] = (out[t] ?? 0) + n;
  return out;
};

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** The findings of one backup against its baseline (earlier clean backups, oldest first) and the last clean one's listing change. */
export function judge(fp: BackupFingerprint, baseline: BackupFingerprint[], change: ListingChange | undefined, t: Thresholds): Finding[] {
  const findings: Finding[] = [];
  const arch = archiveOf(fp);
  if (arch) {
    if (arch.ransom_notes.length) {
      findings.push({
        signal: 'ransom-note',
        message: `${arch.ransom_notes.length === 1 ? '1 file named as a ransom note is' : `${arch.ransom_notes.length} files named as ransom notes are`}: ${arch.ransom_notes.slice(0, 3).join(', ')}`,
        evidence: { paths: arch.ransom_notes },
      });
    }
    if (arch.onions.length) {
      findings.push({
        signal: 'onion-address',
        message: `an onion address in ${arch.onions[0]!.path}: ${arch.onions[0]!.address}`,
        evidence: { found: arch.onions },
      });
    }
    const share = arch.sampled ? arch.high_entropy / arch.sampled : 0;
    const baseShares = baseline.map((b) => archiveOf(b)).filter((a) => a && a.sampled).map((a) => a!.high_entropy / a!.sampled);
    const baseShare = median(baseShares);
    if (arch.high_entropy >= t.entropy_min && share >= t.entropy_share && share - baseShare >= t.entropy_share / 2) {
      findings.push({
        signal: 'high-entropy',
        message: `${arch.high_entropy} of ${arch.sampled} files that should compress look random (${pct(share)}; baseline ${pct(baseShare)})`,
        evidence: { high_entropy: arch.high_entropy, sampled: arch.sampled, share, baseline_share: baseShare, paths: arch.high_entropy_paths },
      });
    }
    const prev = baseline.at(-1) && archiveOf(baseline.at(-1)!);
    if (prev) {
      const fresh = Object.entries(arch.by_ext).filter(([ext, n]) => n >= 10 && !baseline.some((b) => (archiveOf(b)?.by_ext[ext] ?? 0) > 0));
      for (const [ext, n] of fresh) {
        findings.push({ signal: 'new-extension', message: `${n} files with an extension never seen before: .${ext || '(none)'}`, evidence: { extension: ext, files: n } });
      }
    }
  }
  if (change) {
    const renameShare = change.before_files ? change.renamed / change.before_files : 0;
    if (change.renamed >= t.rename_min || (change.renamed >= 10 && renameShare >= t.rename_share)) {
      findings.push({
        signal: 'renamed',
        message: `${change.renamed} files renamed since the last clean backup (${pct(renameShare)} of its ${change.before_files})`,
        evidence: { renamed: change.renamed, share: renameShare, before_files: change.before_files, examples: change.renamed_examples },
      });
    }
    const vanishShare = change.before_files ? change.removed / change.before_files : 0;
    if (change.removed >= 10 && vanishShare >= t.vanish_share) {
      findings.push({
        signal: 'vanished',
        message: `${change.removed} of ${change.before_files} files gone since the last clean backup (${pct(vanishShare)})`,
        evidence: { removed: change.removed, share: vanishShare, before_files: change.before_files, examples: change.removed_examples },
      });
    }
  }
  const tables = tablesOf(fp);
  if (tables) {
    const baseTables = baseline.map(tablesOf).filter((x): x is Record<string, number> => !!x);
    if (baseTables.length) {
      const names = new Set(baseTables.flatMap((b) => Object.keys(b)));
      for (const name of [...names].sort()) {
        const history = baseTables.map((b) => b[name]).filter((n): n is number => n !== undefined);
        const base = median(history);
        if (!(name in tables)) {
          if (history.length === baseTables.length) {
            findings.push({ signal: 'table-vanished', message: `table ${name} is gone (it held ${base} rows)`, evidence: { table: name, baseline_rows: base } });
          }
          continue;
        }
        const now = tables[name]!;
        if (base >= 10 && now < base * (1 - t.table_loss)) {
          findings.push({
            signal: 'table-shrunk',
            message: `table ${name} holds ${now} rows, ${pct(1 - now / base)} fewer than its baseline of ${base}`,
            evidence: { table: name, rows: now, baseline_rows: base, lost_share: 1 - now / base },
          });
        }
      }
    }
  }
  if (baseline.length >= 3) {
    const outlier = (signal: 'size' | 'entries', label: string, value: number, history: number[]) => {
      const m = median(history);
      const spread = mad(history);
      const dev = Math.abs(value - m);
      if (m > 0 && dev > t.spread_k * spread && dev > t.change_floor * m) {
        findings.push({
          signal,
          message: `${label} ${value} is ${value > m ? 'above' : 'below'} the job's usual ${Math.round(m)} (${value > m ? '+' : '-'}${pct(dev / m)})`,
          evidence: { value, baseline_median: m, baseline_spread: spread },
        });
      }
    };
    outlier('size', 'size in bytes', fp.size_bytes, baseline.map((b) => b.size_bytes));
    const entries = arch?.entries;
    const baseEntries = baseline.map((b) => archiveOf(b)?.entries).filter((n): n is number => n !== undefined);
    if (entries !== undefined && baseEntries.length >= 3) outlier('entries', 'archive entries', entries, baseEntries);
  }
  return findings;
}

export interface JobAnomalies {
  job_id: string;
  thresholds: Thresholds;
  /** The backups judged (those created since `since`), oldest first. */
  backups: BackupAnomalies[];
  /** The newest clean (or acknowledged) backup of the job, in or before the window. */
  last_clean: { id: string; created_at: string | null } | null;
}

type Listings = (fp: BackupFingerprint) => Array<{ file: string; path: string }> | Promise<Array<{ file: string; path: string }>>;

/** Judges every fingerprinted backup of a job, oldest first; reports those created at or after `since`. */
export async function analyzeJob(
  jobId: string,
  fps: BackupFingerprint[],
  acks: Array<{ backup_id: string; at: string; note: string | null }>,
  listings: Listings,
  o: { since?: Date; thresholds: Thresholds },
): Promise<JobAnomalies> {
  const clean: BackupFingerprint[] = [];
  const out: BackupAnomalies[] = [];
  const ackOf = new Map(acks.map((a) => [a.backup_id, a]));
  for (const fp of fps) {
    const prev = clean.at(-1);
    const lastClean = prev ? { id: prev.backup_id, created_at: prev.created_at } : null;
    const inWindow = !o.since || (fp.created_at !== null && Date.parse(fp.created_at) >= o.since.getTime());
    if (fp.read_verdict !== 'passed') {
      // Encrypted and read without a key: unchecked, and the report says how to read it.
      const sealed = fp.files.some((f) => f.encrypted === true) ? { encrypted: true as const } : {};
      if (inWindow) out.push({ backup_id: fp.backup_id, created_at: fp.created_at, verdict: 'unchecked', findings: [], baseline_size: 0, last_clean: lastClean, ...sealed });
      continue;
    }
    const baseline = clean.slice(-o.thresholds.baseline);
    let change: ListingChange | undefined;
    if (prev) {
      const a = await listings(prev);
      const b = await listings(fp);
      if (a.length && b.length) change = await compareListings(backupListing(a), backupListing(b));
    }
    const findings = baseline.length ? judge(fp, baseline, change, o.thresholds) : judge(fp, [], undefined, o.thresholds);
    const ack = ackOf.get(fp.backup_id);
    const verdict = findings.length ? (ack ? 'acknowledged' : 'anomalous') : 'clean';
    if (verdict !== 'anomalous') clean.push(fp);
    if (inWindow) {
      out.push({
        backup_id: fp.backup_id,
        created_at: fp.created_at,
        verdict,
        findings,
        baseline_size: baseline.length,
        last_clean: lastClean,
        ...(ack ? { ack: { at: ack.at, note: ack.note } } : {}),
      });
    }
  }
  const newestClean = clean.at(-1);
  return {
    job_id: jobId,
    thresholds: o.thresholds,
    backups: out,
    last_clean: newestClean ? { id: newestClean.backup_id, created_at: newestClean.created_at } : null,
  };
}
