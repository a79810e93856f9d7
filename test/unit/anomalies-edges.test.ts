// The anomaly verdicts' words, numbers and edges worked out by hand (src/catalog/anomalies.ts):
// each threshold variable and its bounds, what a comparison of two listings counts (renames,
// removals, the rename window), each rule exactly at its threshold, the messages and evidence a
// user reads, and analyzeJob's window, baseline, acknowledgements and last clean backup. Written
// for the survivors of `npm run mutate` on anomalies.ts (issue 31); anomalies-model.test.ts holds
// the invariants (steady growth raises nothing). No clock is read: every date is given.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  DEFAULT_THRESHOLDS,
  analyzeJob,
  backupListing,
  compareListings,
  judge,
  mad,
  median,
  mergeJoin,
  thresholdsFrom,
  type ListingChange,
  type Thresholds,
} from '../../src/catalog/anomalies.js';
import { ListingWriter, comparePaths, type EntryType, type ListingEntry } from '../../src/catalog/listing.js';
import type { ArchiveStats, BackupFingerprint, FileFingerprint } from '../../src/state/catalog.js';
import { UsageError } from '../../src/errors.js';

const T = DEFAULT_THRESHOLDS;
const DAY = 86_400_000;
const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * DAY).toISOString();

const archive = (o: Partial<ArchiveStats> = {}): ArchiveStats => ({
  entries: 100,
  files: 90,
  dirs: 10,
  links: 0,
  bytes: 5000,
  by_ext: { txt: 90 },
  sampled: 80,
  high_entropy: 0,
  high_entropy_paths: [],
  ransom_notes: [],
  onions: [],
  ...o,
});
const tar = (o: Partial<ArchiveStats> = {}, name = 'a.tar.gz', listing?: string): FileFingerprint => ({
  name,
  bytes: 1000,
  gzip: true,
  kind: 'tar',
  archive: archive(o),
  ...(listing ? { listing } : {}),
});
const dump = (tables: Record<string, number>, name = 'd.sql.gz'): FileFingerprint => ({ name, bytes: 1000, gzip: true, kind: 'sql', sql: { dialect: 'postgres', tables } });
const fp = (i: number, files: FileFingerprint[], o: Partial<BackupFingerprint> = {}): BackupFingerprint => ({
  version: 1,
  backup_id: `b${i}`,
  job_id: 'j',
  created_at: at(i),
  recorded_at: '2026-02-01T00:00:00Z',
  recorded_by: 'scan',
  read_verdict: 'passed',
  size_bytes: 1000,
  duration_s: 60,
  files,
  ...o,
});
const tars = (n: number, o: Partial<ArchiveStats> = {}) => Array.from({ length: n }, (_, i) => fp(i, [tar(o)]));
const signals = (fs: Array<{ signal: string }>) => fs.map((f) => f.signal);

describe('thresholdsFrom: the BACKUPCTL_ANOMALY_* variables', () => {
  const settings: Array<[keyof Thresholds, string, number, number, boolean]> = [
    ['entropy_share', 'BACKUPCTL_ANOMALY_ENTROPY_SHARE', 0.01, 1, false],
    ['entropy_min', 'BACKUPCTL_ANOMALY_ENTROPY_MIN', 1, 1e9, true],
    ['rename_min', 'BACKUPCTL_ANOMALY_RENAME_MIN', 1, 1e9, true],
    ['rename_share', 'BACKUPCTL_ANOMALY_RENAME_SHARE', 0.01, 1, false],
    ['vanish_share', 'BACKUPCTL_ANOMALY_VANISH_SHARE', 0.01, 1, false],
    ['table_loss', 'BACKUPCTL_ANOMALY_TABLE_LOSS', 0.01, 1, false],
    ['spread_k', 'BACKUPCTL_ANOMALY_SPREAD_K', 1, 100, false],
    ['change_floor', 'BACKUPCTL_ANOMALY_CHANGE_FLOOR', 0.01, 100, false],
    ['baseline', 'BACKUPCTL_ANOMALY_BASELINE', 3, 1000, true],
  ];
  const refusal = (env: Record<string, string>): string => {
    try {
      thresholdsFrom(env);
    } catch (e) {
      expect(e).toBeInstanceOf(UsageError);
      return (e as Error).message;
    }
    throw new Error(`accepted ${JSON.stringify(env)}`);
  };

  it('without variables (or with empty ones): the defaults', () => {
    const defaults = { entropy_share: 0.2, entropy_min: 5, rename_min: 50, rename_share: 0.2, vanish_share: 0.3, table_loss: 0.5, spread_k: 6, change_floor: 0.5, baseline: 10 };
    expect(thresholdsFrom({})).toEqual(defaults);
    expect(DEFAULT_THRESHOLDS).toEqual(defaults);
    const blank = Object.fromEntries(settings.map(([, env], i) => [env, i % 2 ? '' : '   ']));
    expect(thresholdsFrom(blank)).toEqual(defaults);
  });

  it('each variable sets its own threshold, both bounds included; a value around spaces is read', () => {
    for (const [key, env, min, max] of settings) {
      expect(thresholdsFrom({ [env]: String(min) }), env).toEqual({ ...T, [key]: min });
      expect(thresholdsFrom({ [env]: ` ${max} ` }), env).toEqual({ ...T, [key]: max });
    }
  });

  it('a value below or above the range, not a number, or a fraction where a whole number is asked, is refused with the range and the default', () => {
    for (const [key, env, min, max, integer] of settings) {
      const what = integer ? 'a whole number' : 'a number';
      const tail = `for ${env}: must be ${what} from ${min} to ${max} (default ${T[key]})`;
      expect(refusal({ [env]: String(min / 2) })).toBe(`invalid value "${min / 2}" ${tail}`);
      expect(refusal({ [env]: String(max * 2) })).toBe(`invalid value "${max * 2}" ${tail}`);
      expect(refusal({ [env]: ' lots ' })).toBe(`invalid value "lots" ${tail}`);
      expect(refusal({ [env]: 'NaN' })).toBe(`invalid value "NaN" ${tail}`);
      if (integer) expect(refusal({ [env]: `${min}.5` })).toBe(`invalid value "${min}.5" ${tail}`);
      else expect(thresholdsFrom({ [env]: String(min * 1.5) })[key]).toBe(min * 1.5);
    }
  });
});

describe('median and MAD', () => {
  it('median: of nothing 0, odd and even counts, numbers compared as numbers', () => {
    expect(median([])).toBe(0);
    expect(median([10, 9, 1])).toBe(9);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([10, 1, 20, 2, 3, 30])).toBe(6.5);
    expect(median([7])).toBe(7);
  });

  it('MAD: the median distance from the median, scaled by 1.4826', () => {
    expect(mad([1, 2, 3, 4, 100])).toBeCloseTo(1.4826, 10);
    expect(mad([5000, 10000, 15000])).toBe(7413);
    expect(mad([])).toBe(0);
  });
});

const entry = (p: string, type: EntryType = 'f', o: Partial<ListingEntry> = {}): ListingEntry => ({ path: p, type, size: 1, mode: 0o644, uid: 0, gid: 0, mtime: 0, crc: type === 'f' ? '00000000' : '', ...o });
async function* stream(entries: ListingEntry[]): AsyncGenerator<ListingEntry> {
  yield* [...entries].sort((x, y) => comparePaths(x.path, y.path));
}
const files = (paths: string[]) => paths.map((p) => entry(p));
const compare = (older: ListingEntry[], newer: ListingEntry[]) => compareListings(stream(older), stream(newer));
const pad = (i: number, n = 2) => String(i).padStart(n, '0');

describe('compareListings: what changed between two listings', () => {
  it('a rename is one more extension on the file\'s own name, never a dot in a folder name', async () => {
    const r = await compare([entry('etc/foo'), entry('home/report.doc')], [entry('etc/foo.d/hosts'), entry('home/report.doc.locked')]);
    expect(r).toMatchObject({ renamed: 1, removed: 1, added: 1, renamed_examples: ['home/report.doc -> home/report.doc.locked'] });
  });

  it('counts regular files only: a changed checksum or size, a file gone, a file added; directories, links and type changes are not counted', async () => {
    const older = [
      entry('dir', 'd'),
      entry('dir/a.txt'),
      entry('dir/b.txt'),
      entry('dir/c.txt'),
      entry('dir/gone.txt'),
      entry('dir/link', 'l', { link: 'a.txt' }),
      entry('dir/old-dir', 'd'),
      entry('x'),
      entry('y', 'd'),
    ];
    const newer = [
      entry('dir', 'd'),
      entry('dir/a.txt'),
      entry('dir/b.txt', 'f', { crc: '11111111' }),
      entry('dir/c.txt', 'f', { size: 2 }),
      entry('dir/link', 'l', { link: 'b.txt' }),
      entry('dir/new-dir', 'd'),
      entry('dir/new.txt'),
      entry('x', 'd', { size: 0 }),
      entry('y', 'f', { size: 0, crc: 'ffffffff' }),
    ];
    expect(await compare(older, newer)).toEqual({ added: 1, removed: 1, changed: 2, renamed: 0, renamed_examples: [], removed_examples: ['dir/gone.txt'], before_files: 5 });
  });

  it('a rename is the old name plus one extension; a name merely longer, a directory gone, a second rename of the same file are not', async () => {
    const older = [...files(['a.doc', 'b.doc', 'c.txt', 'log']), entry('photos', 'd')];
    const newer = files(['a.doc.locked', 'a.doc.x', 'b.doc', 'c.txt.enc', 'logs', 'photos.zip', '.profile']);
    expect(await compare(older, newer)).toEqual({
      added: 4,
      removed: 1,
      changed: 0,
      renamed: 2,
      renamed_examples: ['a.doc -> a.doc.locked', 'c.txt -> c.txt.enc'],
      removed_examples: ['log'],
      before_files: 4,
    });
  });

  it('at most 10 examples of each, the first ones', async () => {
    const older = files([...Array.from({ length: 12 }, (_, i) => `f${pad(i)}.doc`), ...Array.from({ length: 12 }, (_, i) => `g${pad(i)}`)]);
    const newer = files(Array.from({ length: 12 }, (_, i) => `f${pad(i)}.doc.locked`));
    const c = await compare(older, newer);
    expect(c).toMatchObject({ renamed: 12, removed: 12, added: 0, before_files: 24 });
    expect(c.renamed_examples).toEqual(Array.from({ length: 10 }, (_, i) => `f${pad(i)}.doc -> f${pad(i)}.doc.locked`));
    expect(c.removed_examples).toEqual(Array.from({ length: 10 }, (_, i) => `g${pad(i)}`));
  });

  it('a rename is seen while at most 10,000 removed paths came between; the oldest removed path is forgotten after that', async () => {
    // "a" is removed, then the "a-NNNNN" files, then "a.x" arrives (byte order: "-" before ".").
    const within = files(['a', ...Array.from({ length: 9_999 }, (_, i) => `a-${pad(i, 5)}`)]);
    const c1 = await compare(within, files(['a.x']));
    expect(c1).toMatchObject({ renamed: 1, removed: 9_999, added: 0, before_files: 10_000, renamed_examples: ['a -> a.x'] });
    expect(c1.removed_examples).toEqual(Array.from({ length: 10 }, (_, i) => `a-${pad(i, 5)}`));
    const beyond = files(['a', ...Array.from({ length: 10_000 }, (_, i) => `a-${pad(i, 5)}`)]);
    const c2 = await compare(beyond, files(['a.x']));
    expect(c2).toMatchObject({ renamed: 0, removed: 10_001, added: 1, before_files: 10_001, renamed_examples: [] });
    // "a" fell out of the window: the examples start after it.
    expect(c2.removed_examples).toEqual(Array.from({ length: 10 }, (_, i) => `a-${pad(i, 5)}`));
  });

  it('either listing may run on after the other ends', async () => {
    expect(await compare(files(['a', 'b', 'c', 'd']), files(['b']))).toMatchObject({ removed: 3, added: 0, before_files: 4, removed_examples: ['a', 'c', 'd'] });
    expect(await compare(files(['b']), files(['a', 'b', 'c', 'd']))).toMatchObject({ removed: 0, added: 3, before_files: 1 });
    expect(await compare([], [])).toEqual({ added: 0, removed: 0, changed: 0, renamed: 0, renamed_examples: [], removed_examples: [], before_files: 0 });
  });

  it('mergeJoin pairs a path in both, and gives the others alone, in path order', async () => {
    const pairs: Array<[string | null, string | null]> = [];
    for await (const [a, b] of mergeJoin(stream(files(['a', 'c', 'd', 'f'])), stream(files(['b', 'c', 'e', 'f', 'g'])))) pairs.push([a?.path ?? null, b?.path ?? null]);
    expect(pairs).toEqual([
      ['a', null],
      [null, 'b'],
      ['c', 'c'],
      ['d', null],
      [null, 'e'],
      ['f', 'f'],
      [null, 'g'],
    ]);
  });
});

describe('judge: each rule, its message and evidence', () => {
  it('ransom notes: counted over every archive, the first three named', () => {
    expect(judge(fp(9, [tar({ ransom_notes: ['HOW_TO_DECRYPT.txt'] })]), [], undefined, T)).toEqual([
      { signal: 'ransom-note', message: '1 file named as a ransom note is: HOW_TO_DECRYPT.txt', evidence: { paths: ['HOW_TO_DECRYPT.txt'] } },
    ]);
    const two = fp(9, [tar({ ransom_notes: ['x/HOW_TO_DECRYPT.txt', 'README_RESTORE.txt'] }), tar({ ransom_notes: ['y/_readme.txt', 'z/RECOVER-FILES.html'] }, 'b.tar.gz')]);
    expect(judge(two, [], undefined, T)).toEqual([
      {
        signal: 'ransom-note',
        message: '4 files named as ransom notes are: x/HOW_TO_DECRYPT.txt, README_RESTORE.txt, y/_readme.txt',
        evidence: { paths: ['x/HOW_TO_DECRYPT.txt', 'README_RESTORE.txt', 'y/_readme.txt', 'z/RECOVER-FILES.html'] },
      },
    ]);
  });

  it('an onion address: the first one named, all of them in the evidence', () => {
    const found = [
      { path: 'notes/read.txt', address: 'abcdefghijklmnop.onion' },
      { path: 'b/x.html', address: 'qrstuvwxyzabcdef.onion' },
    ];
    const f = fp(9, [tar({ onions: [found[0]!] }), tar({ onions: [found[1]!] }, 'b.tar.gz')]);
    expect(judge(f, [], undefined, T)).toEqual([{ signal: 'onion-address', message: 'an onion address in notes/read.txt: abcdefghijklmnop.onion', evidence: { found } }]);
  });

  it('high entropy: summed over archives, against the median share of the baseline', () => {
    const base = [fp(0, [tar({ high_entropy: 4 })]), fp(1, [tar({ high_entropy: 8 })]), fp(2, [tar({ high_entropy: 0 })])];
    const f = fp(9, [tar({ entries: 50, high_entropy: 20, sampled: 40, high_entropy_paths: ['a1'] }), tar({ entries: 50, high_entropy: 10, sampled: 40, high_entropy_paths: ['b1', 'b2'] }, 'b.tar.gz')]);
    expect(judge(f, base, undefined, T)).toEqual([
      {
        signal: 'high-entropy',
        message: '30 of 80 files that should compress look random (38%; baseline 5%)',
        evidence: { high_entropy: 30, sampled: 80, share: 0.375, baseline_share: 0.05, paths: ['a1', 'b1', 'b2'] },
      },
    ]);
  });

  it('high entropy at its thresholds: the share, the count and the rise over the baseline each count from the value itself', () => {
    const t = { ...T, entropy_share: 0.25 };
    const high = (n: number, sampled: number, base: BackupFingerprint[] = []) => signals(judge(fp(9, [tar({ high_entropy: n, sampled })]), base, undefined, t));
    expect(high(20, 80)).toEqual(['high-entropy']); // 25%, the share itself
    expect(high(19, 80)).toEqual([]);
    expect(high(5, 20)).toEqual(['high-entropy']); // 5 files, the count itself
    expect(high(4, 16)).toEqual([]);
    const at375 = [fp(0, [tar({ high_entropy: 30 })])];
    expect(high(40, 80, at375)).toEqual(['high-entropy']); // 50% over 37.5%: a rise of half the share, exactly
    expect(high(39, 80, at375)).toEqual([]);
    expect(high(40, 80, [fp(0, [tar({ high_entropy: 32 })])])).toEqual([]); // 50% over 40%
    // Backups without samples (or without archives) are not in the baseline's share.
    const unsampled = [fp(0, [tar({ sampled: 0 })]), fp(1, [dump({ t: 1 })]), fp(2, [tar({ sampled: 0 })]), fp(3, [tar({ high_entropy: 30 })])];
    expect(high(40, 80, unsampled)).toEqual(['high-entropy']);
    expect(high(39, 80, unsampled)).toEqual([]);
  });

  it('new extension: 10 files or more of an extension no baseline backup had, when the last one has archives', () => {
    const base = tars(2);
    expect(judge(fp(9, [tar({ by_ext: { txt: 90, locked: 10, '': 12, enc: 9 } })]), base, undefined, T)).toEqual([
      { signal: 'new-extension', message: '10 files with an extension never seen before: .locked', evidence: { extension: 'locked', files: 10 } },
      { signal: 'new-extension', message: '12 files with an extension never seen before: .(none)', evidence: { extension: '', files: 12 } },
    ]);
    // Counted over the backup's archives.
    const split = fp(9, [tar({ by_ext: { txt: 90, locked: 6 } }), tar({ by_ext: { locked: 6 } }, 'b.tar.gz')]);
    expect(judge(split, base, undefined, T).map((f) => f.message)).toEqual(['12 files with an extension never seen before: .locked']);
    const locked = fp(9, [tar({ by_ext: { txt: 90, locked: 10 } })]);
    const newExt = (b: BackupFingerprint[]) => signals(judge(locked, b, undefined, T));
    // Seen in any baseline backup, even an old one: not new.
    expect(newExt([fp(0, [tar({ by_ext: { txt: 90, locked: 3 } })]), ...tars(2)])).toEqual([]);
    expect(newExt([fp(0, [tar({ by_ext: { txt: 90, locked: 0 } })]), ...tars(2)])).toEqual(['new-extension']);
    // A dump in the baseline has no extensions; a baseline of one backup is enough.
    expect(newExt([fp(0, [dump({ t: 1 })]), fp(1, [tar()])])).toEqual(['new-extension']);
    expect(newExt([fp(1, [tar()])])).toEqual(['new-extension']);
    // The newest baseline backup had no archive: nothing to compare with.
    expect(newExt([fp(0, [tar()]), fp(1, [tar()]), fp(2, [dump({ t: 1 })])])).toEqual([]);
    expect(newExt([])).toEqual([]);
  });

  const change = (renamed: number, removed: number, before_files: number): ListingChange => ({
    added: 0,
    removed,
    changed: 0,
    renamed,
    renamed_examples: ['a.doc -> a.doc.locked'],
    removed_examples: ['gone.txt'],
    before_files,
  });
  const judged = (c: ListingChange, t = T) => judge(fp(9, [tar()]), tars(1), c, t);

  it('renamed: 50 files, or 10 that are 20% of the last clean backup\'s files', () => {
    expect(judged(change(50, 0, 1000))).toEqual([
      {
        signal: 'renamed',
        message: '50 files renamed since the last clean backup (5% of its 1000)',
        evidence: { renamed: 50, share: 0.05, before_files: 1000, examples: ['a.doc -> a.doc.locked'] },
      },
    ]);
    expect(judged(change(49, 0, 1000))).toEqual([]);
    expect(judged(change(10, 0, 50)).map((f) => f.message)).toEqual(['10 files renamed since the last clean backup (20% of its 50)']);
    expect(judged(change(10, 0, 51))).toEqual([]);
    expect(judged(change(9, 0, 45))).toEqual([]);
    expect(signals(judged(change(5, 0, 1000), { ...T, rename_min: 5 }))).toEqual(['renamed']);
  });

  it('vanished: 10 files or more that are 30% of the last clean backup\'s files', () => {
    expect(judged(change(0, 30, 100))).toEqual([
      {
        signal: 'vanished',
        message: '30 of 100 files gone since the last clean backup (30%)',
        evidence: { removed: 30, share: 0.3, before_files: 100, examples: ['gone.txt'] },
      },
    ]);
    expect(judged(change(0, 29, 100))).toEqual([]);
    expect(judged(change(0, 10, 20)).map((f) => f.message)).toEqual(['10 of 20 files gone since the last clean backup (50%)']);
    expect(judged(change(0, 9, 10))).toEqual([]);
    expect(judged(change(0, 0, 0))).toEqual([]);
  });

  it('tables: a table that lost half its baseline rows (of 10 or more), one gone from every baseline backup, in name order', () => {
    const base = Array.from({ length: 3 }, (_, i) => fp(i, [dump({ 'public.users': 10, 'public.small': 9, 'z.log': 100 + i * 100, 'a.audit': 50 })]));
    expect(judge(fp(9, [dump({ 'public.users': 4, 'public.small': 0, 'z.log': 200, 'a.audit': 50 })]), base, undefined, T)).toEqual([
      {
        signal: 'table-shrunk',
        message: 'table public.users holds 4 rows, 60% fewer than its baseline of 10',
        evidence: { table: 'public.users', rows: 4, baseline_rows: 10, lost_share: 1 - 4 / 10 },
      },
    ]);
    expect(judge(fp(9, [dump({ 'public.users': 5, 'public.small': 9, 'z.log': 200, 'a.audit': 50 })]), base, undefined, T)).toEqual([]);
    expect(judge(fp(9, [dump({ 'public.users': 10, 'public.small': 9 })]), base, undefined, T)).toEqual([
      { signal: 'table-vanished', message: 'table a.audit is gone (it held 50 rows)', evidence: { table: 'a.audit', baseline_rows: 50 } },
      { signal: 'table-vanished', message: 'table z.log is gone (it held 200 rows)', evidence: { table: 'z.log', baseline_rows: 200 } },
    ]);
  });

  it('tables: rows summed over dumps; a table only some baseline backups had is judged on those, and not called gone', () => {
    const base = [fp(0, [dump({ t: 12 })]), fp(1, [dump({ t: 12, late: 100 })]), fp(2, [dump({ t: 12, late: 100 })])];
    const now = fp(9, [dump({ t: 3 }, 'a.sql.gz'), dump({ t: 2 }, 'b.sql.gz')]);
    expect(judge(now, base, undefined, T)).toEqual([
      { signal: 'table-shrunk', message: 'table t holds 5 rows, 58% fewer than its baseline of 12', evidence: { table: 't', rows: 5, baseline_rows: 12, lost_share: 1 - 5 / 12 } },
    ]);
    expect(judge(fp(9, [dump({ t: 12, late: 40 })]), base, undefined, T).map((f) => f.message)).toEqual(['table late holds 40 rows, 60% fewer than its baseline of 100']);
  });

  it('a backup with a dump and an archive is judged on both; a kind the baseline lacks (or the backup lacks) is not compared', () => {
    const both = fp(9, [dump({ t: 1 }), tar({ ransom_notes: ['HOW_TO_DECRYPT.txt'] })]);
    const dumps = Array.from({ length: 3 }, (_, i) => fp(i, [dump({ t: 100, u: 5 })]));
    expect(signals(judge(both, dumps, undefined, T))).toEqual(['ransom-note', 'table-shrunk', 'table-vanished']);
    // No dump now: the baseline's tables are not called gone; no archive now: its entries are not compared.
    expect(judge(fp(9, [tar()]), dumps, undefined, T)).toEqual([]);
    expect(judge(fp(9, [dump({ t: 100, u: 5 })]), tars(3), undefined, T)).toEqual([]);
    expect(judge(fp(9, [tar({ entries: 5000 })]), dumps, undefined, T)).toEqual([]);
  });

  it('size: above or below the median of 3 or more baseline backups, beyond both the spread and half the median', () => {
    const flat = tars(3);
    const size = (v: number, base = flat, t = T) => judge(fp(9, [tar()], { size_bytes: v }), base, undefined, t);
    expect(size(2000)).toEqual([{ signal: 'size', message: 'size in bytes 2000 is above the job\'s usual 1000 (+100%)', evidence: { value: 2000, baseline_median: 1000, baseline_spread: 0 } }]);
    expect(size(400).map((f) => f.message)).toEqual(['size in bytes 400 is below the job\'s usual 1000 (-60%)']);
    expect(size(2000, tars(2))).toEqual([]);
    expect(size(1500)).toEqual([]); // half the median, exactly
    expect(size(1501).map((f) => f.message)).toEqual(['size in bytes 1501 is above the job\'s usual 1000 (+50%)']);
    // A noisy history (1000, 2000, 3000: a spread of 1482.6) needs 6 spreads.
    const noisy = [1000, 2000, 3000].map((s, i) => fp(i, [tar()], { size_bytes: s }));
    expect(size(10000, noisy)).toEqual([]);
    expect(size(12000, noisy)).toEqual([{ signal: 'size', message: 'size in bytes 12000 is above the job\'s usual 2000 (+500%)', evidence: { value: 12000, baseline_median: 2000, baseline_spread: mad([1000, 2000, 3000]) } }]);
    // 6 spreads of 7413 exactly is not beyond them.
    const wide = [5000, 10000, 15000].map((s, i) => fp(i, [tar()], { size_bytes: s }));
    expect(size(10000 + 6 * 7413, wide)).toEqual([]);
    expect(signals(size(10000 + 6 * 7413 + 1, wide))).toEqual(['size']);
    // A median between two sizes is shown rounded.
    const halves = [1000, 1001, 1000, 1001].map((s, i) => fp(i, [tar()], { size_bytes: s }));
    expect(size(3000, halves).map((f) => f.message)).toEqual(['size in bytes 3000 is above the job\'s usual 1001 (+200%)']);
  });

  it('entries: against 3 or more baseline backups with archives; a usual of 0 entries raises nothing', () => {
    const entries = (v: number, base: BackupFingerprint[]) => judge(fp(9, [tar({ entries: v })]), base, undefined, T);
    expect(entries(300, tars(3))).toEqual([{ signal: 'entries', message: 'archive entries 300 is above the job\'s usual 100 (+200%)', evidence: { value: 300, baseline_median: 100, baseline_spread: 0 } }]);
    expect(signals(entries(300, [fp(5, [dump({ t: 1 })]), ...tars(3)]))).toEqual(['entries']);
    expect(entries(300, [fp(5, [dump({ t: 1 })]), ...tars(2)])).toEqual([]);
    // Two archives: their entries add up (60 + 40 is the usual 100).
    expect(judge(fp(9, [tar({ entries: 60 }), tar({ entries: 40 }, 'b.tar.gz')]), tars(3), undefined, T)).toEqual([]);
    expect(entries(50, tars(3, { entries: 0 }))).toEqual([]);
  });
});

describe('analyzeJob: verdicts, window, baseline, acknowledgements', () => {
  const t3 = { ...T, baseline: 3 };
  const note = (i: number) => fp(i, [tar({ ransom_notes: ['HOW_TO_DECRYPT.txt'] })]);
  const ransom = [{ signal: 'ransom-note', message: '1 file named as a ransom note is: HOW_TO_DECRYPT.txt', evidence: { paths: ['HOW_TO_DECRYPT.txt'] } }];
  const lc = (i: number) => ({ id: `b${i}`, created_at: at(i) });

  it('each backup in the window: its verdict, findings, baseline size and last clean backup; an acknowledged one joins the baseline', async () => {
    const fps = [
      fp(0, [tar()]),
      fp(1, [tar()]),
      fp(2, [tar()], { read_verdict: 'failed' }),
      fp(3, [tar()]),
      note(4),
      note(5),
      fp(6, [tar()]),
      fp(7, [tar()], { read_verdict: 'unchecked' }),
    ];
    const acks = [{ backup_id: 'b5', at: '2026-01-07T10:00:00Z', note: 'the note is ours' }];
    const r = await analyzeJob('job-1', fps, acks, () => [], { since: new Date(at(3)), thresholds: t3 });
    expect(r).toEqual({
      job_id: 'job-1',
      thresholds: t3,
      backups: [
        { backup_id: 'b3', created_at: at(3), verdict: 'clean', findings: [], baseline_size: 2, last_clean: lc(1) },
        { backup_id: 'b4', created_at: at(4), verdict: 'anomalous', findings: ransom, baseline_size: 3, last_clean: lc(3) },
        { backup_id: 'b5', created_at: at(5), verdict: 'acknowledged', findings: ransom, baseline_size: 3, last_clean: lc(3), ack: { at: '2026-01-07T10:00:00Z', note: 'the note is ours' } },
        { backup_id: 'b6', created_at: at(6), verdict: 'clean', findings: [], baseline_size: 3, last_clean: lc(5) },
        { backup_id: 'b7', created_at: at(7), verdict: 'unchecked', findings: [], baseline_size: 0, last_clean: lc(6) },
      ],
      last_clean: lc(6),
    });
  });

  it('without a window every backup is listed, one without a date too; with a window, one without a date is not', async () => {
    const fps = [fp(0, [tar()], { created_at: null }), fp(1, [tar()], { read_verdict: 'failed' }), note(2)];
    const all = await analyzeJob('j', fps, [], () => [], { thresholds: T });
    expect(all.backups.map((b) => [b.backup_id, b.created_at, b.verdict, b.last_clean?.id ?? null])).toEqual([
      ['b0', null, 'clean', null],
      ['b1', at(1), 'unchecked', 'b0'],
      ['b2', at(2), 'anomalous', 'b0'],
    ]);
    expect(all.last_clean).toEqual({ id: 'b0', created_at: null });
    const since = await analyzeJob('j', fps, [], () => [], { since: new Date(at(0)), thresholds: T });
    expect(since.backups.map((b) => b.backup_id)).toEqual(['b1', 'b2']);
    expect(since.last_clean?.id).toBe('b0');
    const later = await analyzeJob('j', fps, [], () => [], { since: new Date(Date.parse(at(2)) + 1), thresholds: T });
    expect(later.backups).toEqual([]);
    expect(later.last_clean?.id).toBe('b0');
    const none = await analyzeJob('j', [note(0)], [], () => [], { thresholds: T });
    expect(none.last_clean).toBeNull();
  });

  it('the first backup is judged on its own; later ones against the baseline', async () => {
    const r = await analyzeJob('j', [fp(0, [tar()], { size_bytes: 50_000 }), ...[1, 2, 3].map((i) => fp(i, [tar()])), fp(4, [tar()], { size_bytes: 50_000 })], [], () => [], { thresholds: T });
    expect(r.backups.map((b) => [b.verdict, b.baseline_size, signals(b.findings)])).toEqual([
      ['clean', 0, []],
      ['clean', 1, []],
      ['clean', 2, []],
      ['clean', 3, []],
      ['anomalous', 4, ['size']],
    ]);
  });

  describe('with listings', () => {
    let dir = '';
    const listing = async (name: string, paths: string[]) => {
      const file = path.join(dir, name);
      const w = new ListingWriter(file);
      for (const p of paths) await w.add(entry(p));
      await w.finish();
      return file;
    };
    const twenty = Array.from({ length: 20 }, (_, i) => `docs/f${pad(i)}.txt`);
    const byId = new Map<string, Array<{ file: string; path: string }>>();
    const listings = (f: BackupFingerprint) => byId.get(f.backup_id) ?? [];

    beforeAll(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'backupctl-anomalies-'));
      const all = await listing('all.gz', twenty);
      const renamed = await listing('renamed.gz', twenty.map((p, i) => (i < 15 ? `${p}.locked` : p)));
      const half = await listing('half.gz', twenty.slice(10));
      const other = await listing('other.gz', ['etc/hosts', 'etc/passwd']);
      byId.set('b0', [{ file: 'home.tar.gz', path: all }]);
      byId.set('b1', [{ file: 'home.tar.gz', path: renamed }]);
      byId.set('b2', [{ file: 'home.tar.gz', path: all }]);
      byId.set('b4', [{ file: 'home.tar.gz', path: half }]);
      // Two archives, given out of order: read by file name, each path under its file's name.
      byId.set('b6', [
        { file: 'z.tar.gz', path: other },
        { file: 'home.tar.gz', path: all },
      ]);
      byId.set('b7', [
        { file: 'home.tar.gz', path: all },
        { file: 'z.tar.gz', path: other },
      ]);
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('backupListing: one listing as it is; several in file-name order, each path prefixed', async () => {
      const read = async (l: Array<{ file: string; path: string }>) => {
        const out: string[] = [];
        for await (const x of backupListing(l)) out.push(x.path);
        return out;
      };
      expect(await read(byId.get('b0')!)).toEqual(twenty);
      expect(await read(byId.get('b6')!)).toEqual([...twenty.map((p) => `home.tar.gz/${p}`), 'z.tar.gz/etc/hosts', 'z.tar.gz/etc/passwd']);
      expect(await read([])).toEqual([]);
    });

    it('archives whose names share a start (db.tar, db.tar.1): read in the order of their prefixed paths, so one added file is one added file', async () => {
      const one = await listing('one.gz', ['x']);
      const oneMore = await listing('one-more.gz', ['x', 'y']);
      const many = await listing('many.gz', twenty);
      const read = async (l: Array<{ file: string; path: string }>) => {
        const out: string[] = [];
        for await (const x of backupListing(l)) out.push(x.path);
        return out;
      };
      const before = [
        { file: 'db.tar', path: one },
        { file: 'db.tar.1', path: many },
      ];
      const after = [
        { file: 'db.tar', path: oneMore },
        { file: 'db.tar.1', path: many },
      ];
      const paths = await read(before);
      expect(paths).toEqual([...paths].sort());
      expect(paths[0]).toBe(`db.tar.1/${twenty[0]}`);
      const change = await compareListings(backupListing(before), backupListing(after));
      expect(change).toMatchObject({ added: 1, removed: 0, changed: 0, renamed: 0, before_files: 21 });
    });

    it('renames and removals are counted against the last clean backup; a backup without a listing is not compared', async () => {
      const fps = [0, 1, 2, 3, 4, 5].map((i) => fp(i, [tar()]));
      const r = await analyzeJob('j', fps, [], listings, { thresholds: T });
      expect(r.backups.map((b) => [b.backup_id, b.verdict, b.last_clean?.id ?? null, b.findings.map((f) => f.message)])).toEqual([
        ['b0', 'clean', null, []],
        ['b1', 'anomalous', 'b0', ['15 files renamed since the last clean backup (75% of its 20)']],
        // Against b0 again, not the anomalous b1: nothing changed.
        ['b2', 'clean', 'b0', []],
        // No listing of its own.
        ['b3', 'clean', 'b2', []],
        // b3 has no listing: nothing to compare with.
        ['b4', 'clean', 'b3', []],
        ['b5', 'clean', 'b4', []],
      ]);
      expect(r.backups[1]!.findings[0]!.evidence).toEqual({
        renamed: 15,
        share: 0.75,
        before_files: 20,
        examples: twenty.slice(0, 10).map((p) => `${p} -> ${p}.locked`),
      });
      const gone = await analyzeJob('j', [fp(2, [tar()]), fp(4, [tar()])], [], listings, { thresholds: T });
      expect(gone.backups[1]!.findings).toEqual([
        {
          signal: 'vanished',
          message: '10 of 20 files gone since the last clean backup (50%)',
          evidence: { removed: 10, share: 0.5, before_files: 20, examples: twenty.slice(0, 10) },
        },
      ]);
      const two = await analyzeJob('j', [fp(6, [tar()]), fp(7, [tar()])], [], listings, { thresholds: T });
      expect(two.backups.map((b) => b.verdict)).toEqual(['clean', 'clean']);
    });
  });
});
