// The one retention text (src/backups/retention.ts), `d7 w4 m3`, as the tables, backups as
// code's plan and the retention forecast write it. Written for the survivors of `npm run
// mutate` on that file (issue 31): it had no test of its own.
import { describe, expect, it } from 'vitest';
import { RETENTION_PERIODS, retentionText } from '../../src/backups/retention.js';

describe('retentionText', () => {
  it('the periods in the service\'s order', () => {
    expect(RETENTION_PERIODS).toEqual(['hourly', 'daily', 'weekly', 'monthly']);
  });

  it('no retention is an empty cell: absent, null, Laravel\'s [], not an object, nothing given', () => {
    for (const r of [undefined, null, [], [1, 2], 'd7', 7, true, {}, { hourly: null, daily: undefined }, { yearly: 3 }]) {
      expect(retentionText(r), JSON.stringify(r)).toBeUndefined();
    }
  });

  it('periods in that order whatever the record\'s, as h/d/w/m and the count', () => {
    expect(retentionText({ monthly: 3, daily: 7, weekly: 4, hourly: 6 })).toBe('h6 d7 w4 m3');
    expect(retentionText({ weekly: 4, daily: 7 })).toBe('d7 w4');
    expect(retentionText({ daily: '7', yearly: 9 })).toBe('d7');
  });

  it('a count of 0 keeps nothing and is left out; every count 0 is none', () => {
    expect(retentionText({ daily: 7, weekly: 0, monthly: '0', hourly: null })).toBe('d7');
    expect(retentionText({ daily: 0, weekly: '0' })).toBe('none');
    expect(retentionText({ hourly: 0 })).toBe('none');
  });
});
