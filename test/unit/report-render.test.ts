// The report's renderers on a hand-made document whose service text is
// hostile: HTML escapes it everywhere (text and attributes), Markdown cannot
// be broken out of its table cells, the table strips control characters.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCronTools, type CronTools } from '../../src/status/schedule.js';
import { buildEntry, totalsOf } from '../../src/report/compute.js';
import { reportHtml } from '../../src/report/html.js';
import { reportMarkdown, reportTable } from '../../src/report/text.js';
import { plainPalette } from '../../src/status/view.js';
import type { ReportDocument } from '../../src/report/model.js';

let tools: CronTools;
beforeAll(async () => {
  tools = await loadCronTools();
});

const HOSTILE = '<img src=x onerror=alert(1)>" | **x** \x1b[31m';

function doc(): ReportDocument {
  const since = Date.parse('2026-03-26T00:00:00Z');
  const until = Date.parse('2026-03-31T00:00:00Z');
  const entry = buildEntry(
    {
      kind: 'job',
      id: 'j<1>',
      name: HOSTILE,
      createdAt: undefined,
      schedules: [{ id: 1, cron: '30 2 * * *', text: '30 2 * * *', timezone: 'Europe/Paris', status: 'active' }],
      attempts: [{ id: 'b1', status: 'completed', startedAt: Date.parse('2026-03-27T01:30:30Z'), completedAt: Date.parse('2026-03-27T01:40:30Z'), manual: false, sizeBytes: 2048 }],
      notes: [`a note with ${HOSTILE}`],
    },
    { since, until, graceMs: 3_600_000, now: until },
    tools,
  );
  return {
    generated_at: new Date(until).toISOString(),
    window: { since: new Date(since).toISOString(), until: new Date(until).toISOString(), grace_seconds: 3600 },
    summary: { jobs: totalsOf([entry]), droplets: null, volumes: null, resources: null },
    jobs: [entry],
    droplets: null,
    volumes: null,
    resources: null,
    notes: ['rule one'],
  };
}

describe('report renderers', () => {
  it('HTML escapes every service text and holds one chart of each kind', () => {
    const html = reportHtml(doc());
    expect(html).not.toContain('<img');
    expect(html).not.toContain('\x1b');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;&#34;');
    expect(html).not.toMatch(/<script|<link|url\(/i);
    expect(html.match(/<svg class="chart"/g)).toHaveLength(4);
    // The missed runs are listed at the schedule's local time; the DST day (29 March) is there too.
    expect(html).toContain('2026-03-29 03:00');
    expect(html).toContain('@media print');
  });

  it('Markdown keeps hostile names inside their cell', () => {
    const md = reportMarkdown(doc(), new Date('2026-03-31T00:00:00Z'));
    const row = md.split('\n').find((l) => l.startsWith('| \\<img'))!;
    expect(row).toBeDefined();
    // 13 cells: 14 unescaped pipes.
    expect(row.replace(/\\\|/g, '').split('|')).toHaveLength(15);
    expect(md).not.toContain('**x**');
    expect(md).not.toContain('\x1b');
  });

  it('the table strips control characters and lists the missed runs', () => {
    const text = reportTable(doc(), { palette: plainPalette, width: 200, noHeaders: false, now: new Date('2026-03-31T00:00:00Z') });
    expect(text).not.toContain('\x1b');
    expect(text).toContain('Jobs: 1 job, 5 expected runs, 1 completed, 4 missed; success 20.0%');
    expect(text).toMatch(/missed 2026-03-26 02:30 GMT\+1, 2026-03-28 02:30 GMT\+1, 2026-03-29 03:00 GMT\+2, 2026-03-30 02:30 GMT\+2/);
  });
});
