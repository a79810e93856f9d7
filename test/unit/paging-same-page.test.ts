// samePage (src/http/paging.ts): how a walk tells that the service ignored `page` (issue 30 §6),
// compared id by id since issue 31 (it serialised every id of every page twice before).
import { describe, expect, it } from 'vitest';
import { samePage } from '../../src/http/paging.js';

describe('samePage', () => {
  it('is the same ids in the same order; the whole records where they have none', () => {
    expect(samePage([{ id: 1 }, { id: 2 }], [{ id: 1, name: 'changed' }, { id: 2 }])).toBe(true);
    expect(samePage([{ id: 1 }, { id: 2 }], [{ id: 2 }, { id: 1 }])).toBe(false);
    expect(samePage([{ id: 1 }], [{ id: '1' }])).toBe(false);
    expect(samePage([{ id: 1 }], [{ id: 1 }, { id: 2 }])).toBe(false);
    expect(samePage([{ name: 'a' }], [{ name: 'a' }])).toBe(true);
    expect(samePage([{ name: 'a' }], [{ name: 'b' }])).toBe(false);
    expect(samePage([{ id: { v: 1 } }], [{ id: { v: 1 } }])).toBe(true);
    expect(samePage([{ id: { v: 1 } }], [{ id: 1 }])).toBe(false);
    expect(samePage(['x', 2, null], ['x', 2, null])).toBe(true);
    expect(samePage([null], [{}])).toBe(false);
    expect(samePage([], [])).toBe(true);
  });
});
