// The demo's story (test/helpers/demo-sweep.ts) every 5 minutes of the days
// when European and US clocks change, both ways, and of 29 February.
import { describe, expect, it } from 'vitest';
import { SWEEP_TIMEOUT_MS, sweep } from '../helpers/demo-sweep.js';

describe('the demo keeps its story when clocks change', () => {
  const special: Array<[string, string]> = [
    ['2026-10-25', 'European clocks go back'],
    ['2026-11-01', 'US clocks go back'],
    ['2027-03-14', 'US clocks go forward'],
    ['2027-03-28', 'European clocks go forward'],
    ['2028-02-29', 'it is 29 February'],
  ];
  for (const [day, what] of special) {
    it(`every 5 minutes of ${day} (UTC), when ${what}`, async () => {
      expect(await sweep(`${day}T00:00:00Z`, 1)).toBe(288);
    }, SWEEP_TIMEOUT_MS);
  }
});
