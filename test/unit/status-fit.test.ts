// status at 60 columns over a whole day of the demo (the clock-change night of Europe):
// every line fits, whatever the ages read. "completed 54 minutes ago" under a 24-cell
// floor made the jobs table 61 wide at 01:30 on 2027-03-28 (seen under faketime).
import { describe, expect, it } from 'vitest';
import { statusAt } from '../helpers/demo-sweep.js';
import { statusView } from '../../src/status/view.js';
import { plainPalette } from '../../src/output/view-table.js';
import { displayWidth } from '../../src/output/format.js';

describe('status fits 60 columns', () => {
  it('every 10 minutes of 2027-03-28 (UTC), jobs, droplets, volumes and resources', async () => {
    const start = Date.parse('2027-03-28T00:00:00Z');
    for (let t = start; t < start + 86_400_000; t += 600_000) {
      const { doc } = await statusAt(t);
      const text = statusView(doc, { palette: plainPalette, unicode: true, width: 60, noHeaders: false, now: new Date(t), maxAgeText: '26h' });
      const wide = text.split('\n').filter((line) => displayWidth(line) > 60);
      expect(wide, new Date(t).toISOString()).toEqual([]);
    }
  }, 60_000);
});
