import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Column } from '../../src/contract/context.js';
import {
  displayWidth,
  formatCell,
  humanBytes,
  parseDateTime,
  relativeTime,
  sanitize,
  truncate,
  tsvField,
  type Colorizer,
} from '../../src/output/index.js';

const now = new Date('2026-11-22T10:00:00Z');
const tagged: Colorizer = {
  bold: (s) => `<b>${s}</b>`,
  green: (s) => `<green>${s}</green>`,
  yellow: (s) => `<yellow>${s}</yellow>`,
  red: (s) => `<red>${s}</red>`,
  dim: (s) => `<dim>${s}</dim>`,
};
const col = (format?: Column['format']): Column => ({ key: 'v', header: 'V', ...(format ? { format } : {}) });

describe('relativeTime', () => {
  it('reads Laravel microsecond ISO datetimes', () => {
    expect(relativeTime('2026-11-22T07:00:00.000000Z', now)).toBe('3 hours ago');
  });

  it('reads zone-less account datetimes as UTC', () => {
    expect(relativeTime('2026-11-22 07:00:00', now)).toBe('3 hours ago');
    expect(parseDateTime('2022-01-11 06:40:29')?.toISOString()).toBe('2022-01-11T06:40:29.000Z');
  });

  it('honours explicit offsets', () => {
    expect(parseDateTime('2026-11-22T12:00:00+02:00')?.toISOString()).toBe('2026-11-22T10:00:00.000Z');
  });

  it('says just now, past and future in plain words', () => {
    expect(relativeTime('2026-11-22T09:59:30Z', now)).toBe('just now');
    expect(relativeTime('2026-11-22T09:59:00Z', now)).toBe('1 minute ago');
    expect(relativeTime('2026-11-22T09:15:00Z', now)).toBe('45 minutes ago');
    expect(relativeTime('2026-11-21T10:00:00Z', now)).toBe('1 day ago');
    expect(relativeTime('2026-11-24T10:00:00Z', now)).toBe('in 2 days');
    expect(relativeTime('2026-09-01T10:00:00Z', now)).toBe('2 months ago');
    expect(relativeTime('2020-11-22T10:00:00Z', now)).toBe('6 years ago');
    expect(relativeTime(new Date('2026-11-22T07:00:00Z'), now)).toBe('3 hours ago');
  });

  it('stays short for any date within a century', () => {
    fc.assert(
      fc.property(fc.integer({ min: -99 * 365 * 86400, max: 99 * 365 * 86400 }), (offset) => {
        const text = relativeTime(new Date(now.getTime() + offset * 1000), now);
        return text.length <= 15;
      }),
    );
  });

  it('passes non-dates through sanitised and empties null', () => {
    expect(relativeTime(null, now)).toBe('');
    expect(relativeTime(undefined, now)).toBe('');
    expect(relativeTime('never\u001b[31m', now)).toBe('never');
  });
});

describe('humanBytes', () => {
  it('uses binary multiples labelled as such (KiB, MiB, GiB)', () => {
    expect(humanBytes(0)).toBe('0 B');
    expect(humanBytes(744)).toBe('744 B');
    expect(humanBytes(1024)).toBe('1 KiB');
    expect(humanBytes(1536)).toBe('1.5 KiB');
    expect(humanBytes(1.5 * 1024 * 1024)).toBe('1.5 MiB');
    expect(humanBytes(152 * 1024 ** 3)).toBe('152 GiB');
    expect(humanBytes(1024 * 1024 - 1)).toBe('1 MiB');
    expect(humanBytes(33_787_215_872)).toBe('31.5 GiB');
  });
});

describe('sanitize', () => {
  it('removes ANSI sequences and control characters', () => {
    expect(sanitize('\u001b[31mX')).toBe('X');
    expect(sanitize('a\u0007b\u0085c')).toBe('abc');
    expect(sanitize('a\u009b2Jb')).toBe('ab');
    expect(sanitize('\u001b]8;;http://evil\u0007link\u001b]8;;\u0007')).toBe('link');
    expect(sanitize('one\ntwo\tthree')).toBe('one two three');
    expect(sanitize('plain text')).toBe('plain text');
  });

  it('never leaves an ESC or C1 byte, whatever the input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => !/[\u0000-\u001f\u007f-\u009f]/.test(sanitize(text))),
      { numRuns: 300 },
    );
  });

  it('turns control characters into spaces for tsv', () => {
    expect(tsvField('a\tb\nc\u001b[1md')).toBe('a b cd');
  });
});

describe('truncate and displayWidth', () => {
  it('cuts with an ellipsis to the width', () => {
    expect(truncate('abcdefghij', 5)).toBe('abcd…');
    expect(truncate('abc', 5)).toBe('abc');
    expect(truncate('abc', 1)).toBe('…');
  });

  it('counts East Asian wide characters as two cells', () => {
    expect(displayWidth('日本語')).toBe(6);
    expect(truncate('日本語テキスト', 7)).toBe('日本語…');
    expect(displayWidth(truncate('日本語テキスト', 7))).toBeLessThanOrEqual(7);
  });

  it('never exceeds the width', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 0, max: 40 }), (text, width) => displayWidth(truncate(text, width)) <= width),
    );
  });
});

describe('formatCell', () => {
  it('formats by the column format', () => {
    expect(formatCell('2026-11-22T07:00:00.000000Z', col('time'), tagged, now)).toBe('3 hours ago');
    expect(formatCell(1536, col('size'), tagged)).toBe('1.5 KiB');
    // The service's size texts (1024-based) in the same units as byte counts.
    expect(formatCell('255.89 MB', col('size'), tagged)).toBe('256 MiB');
    expect(formatCell('1.5 KB', col('size'), tagged)).toBe('1.5 KiB');
    expect(formatCell('0 bytes', col('size'), tagged)).toBe('0 B');
    expect(formatCell('about a gigabyte', col('size'), tagged)).toBe('about a gigabyte');
    expect(formatCell(true, col('bool'), tagged)).toBe('yes');
    expect(formatCell(0, col('bool'), tagged)).toBe('no');
    expect(formatCell({ manual: 1, daily: 0, weekly: true }, col('tags'), tagged)).toBe('manual,weekly');
    expect(formatCell({ a: [1, 2] }, col('json'), tagged)).toBe('{"a":[1,2]}');
    expect(formatCell({ a: 1 }, col(), tagged)).toBe('{"a":1}');
    expect(formatCell(null, col(), tagged)).toBe('');
  });

  it('colours statuses by meaning and leaves unknown ones alone', () => {
    expect(formatCell('completed', col('status'), tagged)).toBe('<green>completed</green>');
    expect(formatCell('in_progress', col('status'), tagged)).toBe('<yellow>in_progress</yellow>');
    expect(formatCell('completed_with_errors', col('status'), tagged)).toBe('<yellow>completed_with_errors</yellow>');
    expect(formatCell('failed', col('status'), tagged)).toBe('<red>failed</red>');
    expect(formatCell('mystery', col('status'), tagged)).toBe('mystery');
  });

  it('strips escapes from service values', () => {
    expect(formatCell('\u001b[31mX', col(), tagged)).toBe('X');
  });
});
