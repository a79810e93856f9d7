// The edges of the one stated-size parser (src/util/stated-size.ts): the survivors of
// `MUTATE_TESTS=... npm run mutate -- --mutate src/util/stated-size.ts` (issue 31), one case each.
import { describe, expect, it } from 'vitest';
import { parseStatedSize, readingText, statedSizeFit, telltaleUnit } from '../../src/util/stated-size.js';

describe('parseStatedSize', () => {
  it('a byte count is itself: 0 included, one reading', () => {
    expect(parseStatedSize(744)).toEqual({ text: '744 bytes', bytes: 744, min: 744, max: 744, readings: [{ unit: 1024, bytes: 744, min: 744, max: 744 }] });
    expect(parseStatedSize(0)).toEqual({ text: '0 bytes', bytes: 0, min: 0, max: 0, readings: [{ unit: 1024, bytes: 0, min: 0, max: 0 }] });
  });

  it('text in bytes: trimmed, one reading', () => {
    expect(parseStatedSize(' 744 bytes ')).toEqual({ text: '744 bytes', bytes: 744, min: 744, max: 744, readings: [{ unit: 1024, bytes: 744, min: 744, max: 744 }] });
    expect(parseStatedSize('5B')).toMatchObject({ text: '5B', bytes: 5 });
  });

  it('text in KB: trimmed, both readings with their ranges', () => {
    expect(parseStatedSize('  2 KB ')).toEqual({
      text: '2 KB',
      bytes: 2048,
      min: 1500,
      max: 2560,
      readings: [
        { unit: 1024, bytes: 2048, min: 1536, max: 2560 },
        { unit: 1000, bytes: 2000, min: 1500, max: 2500 },
      ],
    });
  });

  it.each(['1 KB extra', 'x1 KB', '1 KB!', '1 K B', ['1 KB'], true, { toString: () => '1 KB' }])('%j is not a size', (text) => {
    expect(parseStatedSize(text)).toBeUndefined();
  });

  it('no space between the number and the unit is a size too', () => {
    expect(parseStatedSize('12.5MB')).toMatchObject({ text: '12.5MB', bytes: Math.round(12.5 * 2 ** 20) });
  });
});

describe('which reading fits', () => {
  const s = parseStatedSize('2 KB')!;

  it('both ends of a range fit; one past them does not', () => {
    expect(statedSizeFit(s, 1536)?.unit).toBe(1024);
    expect(statedSizeFit(s, 2560)?.unit).toBe(1024);
    expect(statedSizeFit(s, 1500)?.unit).toBe(1000);
    expect(statedSizeFit(s, 1499)).toBeUndefined();
    expect(statedSizeFit(s, 2561)).toBeUndefined();
  });

  it('where both fit: the preferred unit, else 1024', () => {
    expect(statedSizeFit(s, 2048)?.unit).toBe(1024);
    expect(statedSizeFit(s, 2048, 1000)?.unit).toBe(1000);
    expect(statedSizeFit(s, 2048, 1024)?.unit).toBe(1024);
    // A preference for a unit that does not fit does not make it fit.
    expect(statedSizeFit(s, 2560, 1000)?.unit).toBe(1024);
  });

  it('a length tells the unit when it fits exactly one reading, at either end of it', () => {
    expect(telltaleUnit(s, 1536)).toBeUndefined(); // 1536..2500: both
    expect(telltaleUnit(s, 2560)).toBe(1024);
    expect(telltaleUnit(s, 2501)).toBe(1024);
    expect(telltaleUnit(s, 1500)).toBe(1000);
    expect(telltaleUnit(s, 1535)).toBe(1000);
    expect(telltaleUnit(s, 2561)).toBeUndefined();
    // One reading only (KiB, or bytes): nothing to tell apart.
    expect(telltaleUnit(parseStatedSize('2 KiB')!, 2048)).toBeUndefined();
  });

  it('the words for a reading: a range, or one number', () => {
    expect(readingText(s, s.readings[1]!)).toBe('"2 KB" read in 1000s (1500..2500 bytes)');
    const b = parseStatedSize('744 bytes')!;
    expect(readingText(b, b.readings[0]!)).toBe('"744 bytes" read in 1024s (744 bytes)');
  });
});
