// The nesting limit of answers (src/http/client.ts nestsDeeperThan): checked on the
// parsed value, since V8 parses any depth but the readers after it recurse.
import { describe, expect, it } from 'vitest';
import { MAX_ANSWER_DEPTH, nestsDeeperThan } from '../../src/http/client.js';

const arrays = (levels: number) => JSON.parse('['.repeat(levels) + ']'.repeat(levels));
const objects = (levels: number) => JSON.parse('{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1));

describe('nestsDeeperThan', () => {
  it('lets 256 levels through and refuses 257, for arrays, objects and a mix', () => {
    expect(MAX_ANSWER_DEPTH).toBe(256);
    for (const build of [arrays, objects]) {
      expect(nestsDeeperThan(build(256), 256)).toBe(false);
      expect(nestsDeeperThan(build(257), 256)).toBe(true);
    }
    const mixed = JSON.parse(`{"data":[${'{"x":['.repeat(127)}1${']}'.repeat(127)}]}`); // 2 + 254 levels
    expect(nestsDeeperThan(mixed, 256)).toBe(false);
    expect(nestsDeeperThan({ data: [mixed] }, 256)).toBe(true);
  });

  it('counts only nesting: strings that hold brackets, wide pages and scalars are fine', () => {
    expect(nestsDeeperThan({ name: '['.repeat(10_000) }, 256)).toBe(false);
    expect(nestsDeeperThan({ data: Array.from({ length: 10_000 }, (_, i) => ({ id: String(i), tags: { daily: true } })) }, 256)).toBe(false);
    for (const scalar of [null, 1, 'x', true]) expect(nestsDeeperThan(scalar, 0)).toBe(false);
  });

  it('a million levels are refused without overflowing the stack', () => {
    expect(nestsDeeperThan(arrays(1_000_000), 256)).toBe(true);
    expect(nestsDeeperThan(objects(1_000_000), 256)).toBe(true);
  });

  it('a key named __proto__ is walked like any other', () => {
    expect(nestsDeeperThan(JSON.parse(`{"__proto__":${'['.repeat(300)}${']'.repeat(300)}}`), 256)).toBe(true);
  });
});
