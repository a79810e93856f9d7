// One rule for a path (an archive's entry and a user's argument to ls, find,
// restore-file: src/catalog/listing.ts cleanPath) and one for a moment to the
// minute (src/output/format.ts utcMinute, which whenAndAge and anomalies/ls/diff share).
import { describe, expect, it } from 'vitest';
import { cleanPath } from '../../src/catalog/listing.js';
import { utcMinute, whenAndAge } from '../../src/output/format.js';

describe('cleanPath', () => {
  it.each([
    ['./config/app.conf', 'config/app.conf'],
    ['././config/', 'config'],
    ['/etc/app.conf', 'etc/app.conf'],
    ['.//etc', 'etc'],
    ['docs\\hr\\a.doc', 'docs/hr/a.doc'],
    ['./', '.'],
    ['/', '.'],
    ['', '.'],
    ['../up', '../up'],
  ])('%s -> %s', (given, want) => {
    expect(cleanPath(given)).toBe(want);
  });
});

describe('utcMinute', () => {
  it('is the time whenAndAge shows, to the minute in UTC', () => {
    const now = new Date('2026-12-01T00:00:00Z');
    expect(utcMinute('2026-11-24T02:30:59.900Z')).toBe('2026-11-24 02:30 UTC');
    expect(utcMinute('2026-11-24 02:30:00')).toBe('2026-11-24 02:30 UTC');
    expect(whenAndAge('2026-11-24T02:30:59Z', now)![0]).toBe(utcMinute('2026-11-24T02:30:59Z'));
    expect(utcMinute(null)).toBe('unknown time');
    expect(utcMinute('soon\u001b[31m')).not.toContain('\u001b');
  });
});
