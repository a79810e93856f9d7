// restore-test's summary line, read by a person (as verify's, issue 25 §10): the creation time
// in words, never the service's raw ISO text; a failed --assert said once.
import { describe, expect, it } from 'vitest';
import { backupSummaryLine, fileNote } from '../../src/restore/view.js';
import type { RestoreBackupResult, RestoreFileResult } from '../../src/restore/document.js';

const backup = (over: Partial<RestoreBackupResult> = {}): RestoreBackupResult =>
  ({
    id: '79a17c10-dc57-4816-9996-f49158a11bd7',
    created_at: '2026-11-26T06:00:12.000000Z',
    verdict: 'passed',
    reason: null,
    tables: 4,
    rows: 550,
    read_seconds: 1.1,
    restore_seconds: 1.05,
    total_seconds: 1.12,
    files: [],
    ...over,
  }) as unknown as RestoreBackupResult;

describe('restore-test summary', () => {
  it('says when the backup was made in words, not the raw service time', () => {
    const line = backupSummaryLine(backup(), new Date('2026-11-26T06:41:30Z'));
    expect(line).toContain('(created 2026-11-26 06:00 UTC, 41 minutes ago)');
    expect(line).not.toContain('T06:00:12');
  });

  it('keeps a time it cannot read as the service sent it', () => {
    expect(backupSummaryLine(backup({ created_at: 'yesterday' }))).toContain('(created yesterday)');
  });

  it('names a failed --assert once in the note', () => {
    const sql = 'select count(*) > 1000 from public.orders';
    const note = fileNote({
      check: { verdict: 'verified' },
      failure: { message: `--assert returned f, not true: ${sql}` },
      assertions: [{ sql, ok: false, value: 'f' }],
      warnings: [],
      exec: null,
      verdict: 'failed',
    } as unknown as RestoreFileResult);
    expect(note.split(sql)).toHaveLength(2);
  });
});
