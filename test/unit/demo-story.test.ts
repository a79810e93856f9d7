// The demo tour's words about `report` and `verify` (src/scripts/demo-story.mjs) on hand-made documents.
import { describe, expect, it } from 'vitest';
import { reportStory, restoreStory, verifyStory } from '../../src/scripts/demo-story.mjs';
import { totalsOf } from '../../src/report/compute.js';
import type { ReportDocument, ReportEntry, ReportTotals } from '../../src/report/document.js';

// Every count zero (the totals of no entry), then the figures given.
const totals = (t: Partial<ReportTotals>): ReportTotals => ({ ...totalsOf([]), ...t });

function doc(jobs: Array<Pick<ReportEntry, 'name' | 'missed'>>, t: Partial<ReportTotals>): ReportDocument {
  return {
    generated_at: '2026-03-31T00:00:00.000Z',
    window: { since: '2026-03-01T00:00:00.000Z', until: '2026-03-31T00:00:00.000Z', grace_seconds: 3600 },
    summary: { jobs: totals(t), droplets: null, volumes: null, resources: null },
    jobs: jobs as ReportEntry[],
    droplets: null,
    volumes: null,
    resources: null,
    notes: [],
  };
}

describe('reportStory', () => {
  it('names the jobs that missed runs, most first, and the success rate', () => {
    const d = doc(
      [
        { name: 'b', missed: 1 },
        { name: 'a', missed: 0 },
        { name: 'c', missed: 3 },
        { name: 'a2', missed: 1 },
      ],
      { entries: 4, computable: 4, expected: 120, completed: 112, failed: 2, missed: 5, pending: 1, success_rate: 112 / 119 },
    );
    expect(reportStory(d)).toBe('Over 30 days the 4 jobs expected 120 runs: 112 completed, 2 failed, 5 missed (c 3, a2 1 and b 1) and 1 not judged yet; success 94.1%');
  });

  it('says when none was missed, in the singular where it applies', () => {
    const d = doc([{ name: 'a', missed: 0 }], { entries: 1, computable: 1, expected: 1, completed: 1, success_rate: 1 });
    expect(reportStory(d)).toBe('Over 30 days the 1 job expected 1 run: 1 completed and none missed; success 100.0%');
  });
});

describe('verifyStory', () => {
  type File = import('../../src/verify/document.js').FileResult;
  const file = (f: Partial<File>): File => ({
    backup_id: 'b1',
    name: 'x',
    verdict: 'verified',
    format: 'data',
    stated_size: null,
    bytes: 1,
    entries: null,
    content_bytes: null,
    sha256: 'a'.repeat(64),
    first_seen: null,
    seconds: 0.1,
    mb_per_s: 1,
    resumed: false,
    reasons: [],
    ...f,
  });
  const verifyDoc = (files: File[]): import('../../src/verify/document.js').VerifyDocument => {
    const failed = files.filter((f) => f.verdict === 'failed').length;
    const totals = { files_total: files.length, files_failed: failed, files_unchecked: 0, bytes_read: files.length, seconds: 0.1 };
    return {
      generated_at: '2026-03-01T00:00:00.000Z',
      job: { id: 'j1', name: 'shop' },
      selection: 'latest',
      strict: false,
      verdict: failed ? 'failed' : 'passed',
      summary: { backups: 1, files: files.length, files_failed: failed, files_unchecked: 0, bytes_read: files.length, seconds: 0.1 },
      backups: [{ id: 'b1', created_at: null, status: 'completed', encrypted: false, verdict: failed ? 'failed' : 'passed', ...totals, files }],
    };
  };

  it('says what was checked in each file that verified', () => {
    const d = verifyDoc([
      file({ format: 'tar.gz', entries: 12 }),
      file({ format: 'mysqldump.gz' }),
      file({ format: 'zip', entries: 1 }),
      file({ name: 'list.sha256', verdict: 'not-inspected', reasons: ['not inspected: size and hash only'] }),
    ]);
    expect(verifyStory(d)).toBe(
      'Read the newest backup of shop back: 4 files, a tar.gz of 12 entries, every header checked, a mysqldump dump with its end marker, ' +
        'a zip of 1 entry, every CRC-32 checked and list.sha256: not inspected: size and hash only: passed (exit 0)',
    );
  });

  it('names each failed file with its reasons, and the health status gave the job', () => {
    const d = verifyDoc([
      file({ name: 'a.tar.gz', verdict: 'failed', format: 'gzip', reasons: ['gzip: CRC-32 mismatch'] }),
      file({ name: 'b.sql.gz', verdict: 'failed', format: 'pg_dump.gz', reasons: ['changed since 2026-02-01T00:00:00.000Z', 'size: read 1 bytes'] }),
      file({ format: 'gzip' }),
    ]);
    expect(verifyStory(d, 'healthy')).toBe(
      'Read the newest backup of shop back (status calls it healthy): a.tar.gz fails: gzip: CRC-32 mismatch and ' +
        'b.sql.gz fails: changed since 2026-02-01T00:00:00.000Z; size: read 1 bytes (exit 11)',
    );
  });
});

describe('restoreStory', () => {
  const base = { kind: 'tar', engine: null, database: null, tables: [], rows: 0, files: null, bytes: null, bytes_read: 1, read_seconds: 0.1, restore_seconds: 0.2, check: { verdict: 'verified', format: 'tar.gz', reason: null }, failure: null, warnings: [], assertions: [], exec: null };
  const doc = (files: any[], verdict = 'passed', reason: string | null = null): any => ({
    generated_at: '2026-01-01T00:00:00Z',
    job: { id: 'j', name: 'shop' },
    selection: 'latest',
    verdict,
    summary: {},
    backups: [{ id: 'b', created_at: null, verdict, reason, total_seconds: 1.234, files }],
  });

  it('a SQL restore: tables, rows, engine and the recovery time', () => {
    const f = { ...base, kind: 'pg-plain', verdict: 'restored', engine: { name: 'postgres', runs: 'local', mode: 'local', product: 'PostgreSQL', version: '16.4' }, tables: [{}, {}, {}], rows: 412 };
    expect(restoreStory(doc([f]))).toBe('Restore the newest backup of shop: 3 tables and 412 rows restored into PostgreSQL 16.4 (local), every row counted; recovery time 1.23 s (exit 0)');
  });

  it('a file archive with --exec, the checksum list left out', () => {
    const f = { ...base, verdict: 'extracted', files: 40, exec: { command: 'test -d data', exit_code: 0 } };
    const sums = { ...base, kind: 'sha256sums', verdict: 'not-restorable' };
    expect(restoreStory(doc([f, sums]))).toBe('Restore the newest backup of shop: 40 files extracted and --exec `test -d data` passed; recovery time 1.23 s (exit 0)');
  });

  it('a mongodump archive: structure-only, and no recovery time (issue 29)', () => {
    const f = { ...base, kind: 'mongo-archive', verdict: 'structure-checked', tables: [{}, {}], rows: 1200 };
    expect(restoreStory(doc([f], 'structure-only'))).toBe('Restore the newest backup of shop: 2 collections and 1200 documents parsed (structure checked, not restored); structure-only, no recovery time (exit 0)');
  });

  it('a failure says its reason', () => {
    expect(restoreStory(doc([{ ...base, verdict: 'failed' }], 'failed', '--exec exited with 1'))).toBe('Restore the newest backup of shop: it fails: --exec exited with 1 (exit 14)');
  });
});
