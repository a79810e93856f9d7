// How verify's summary reads (issue 25 §10): a size never parted from its
// unit, no raw ISO time, and what was not checked said in words.
import { describe, expect, it } from 'vitest';
import { backupSummaryLine, summaryText } from '../../src/verify/view.js';
import type { BackupResult, VerifyDocument } from '../../src/verify/document.js';

const backup = (over: Partial<BackupResult> = {}): BackupResult => ({
  id: '3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c',
  created_at: '2026-11-26T01:00:16.000000Z',
  status: 'completed',
  encrypted: false,
  verdict: 'passed',
  files_total: 1,
  files_failed: 0,
  files_unchecked: 0,
  bytes_read: 59_802,
  seconds: 0.05,
  files: [],
  ...over,
});
const doc = (b: BackupResult): VerifyDocument => ({
  generated_at: '2026-11-26T03:00:00.000Z',
  job: { id: 'j', name: 'x' },
  selection: 'latest',
  strict: false,
  verdict: b.verdict,
  summary: { backups: 1, files: b.files_total, files_failed: b.files_failed, files_unchecked: b.files_unchecked, bytes_read: b.bytes_read, seconds: b.seconds },
  backups: [b],
});
const now = new Date('2026-11-26T03:00:00Z');

describe('verify summary', () => {
  it('shows the creation time as a date, a UTC time and an age, never the raw ISO text', () => {
    const line = backupSummaryLine(backup(), now);
    expect(line).toBe('Backup 3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c (created 2026-11-26 01:00 UTC, 1 hour ago): passed, 1 file, 58.4 KiB read in 0.05 s');
    expect(line).not.toMatch(/\d{4}-\d\d-\d\dT/);
  });

  it('never parts a size, a duration or a time from its unit, at any width', () => {
    const line = backupSummaryLine(backup(), now);
    for (let width = 20; width <= line.length; width++) {
      const text = summaryText(doc(backup()), width, now);
      expect(text, `width ${width}`).not.toMatch(/\d\n\s*(KiB|s|UTC|hour)\b/);
      expect(text).toContain('58.4 KiB');
      expect(text).toContain('0.05 s');
    }
  });

  it('says what was not checked, led by the verdict in the words of the marks (issue 29)', () => {
    expect(backupSummaryLine(backup({ verdict: 'unchecked', files_total: 2, files_unchecked: 2 }), now)).toContain(': unchecked, 2 files: size and hash only, content not checked, ');
    expect(backupSummaryLine(backup({ verdict: 'unchecked', files_total: 2, files_unchecked: 1 }), now)).toContain(': unchecked, 1 of 2 files verified; 1 file: size and hash only, content not checked, ');
  });
});
