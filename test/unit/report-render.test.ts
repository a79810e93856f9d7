// The report's renderers on a hand-made document whose service text is
// hostile: HTML escapes it everywhere (text and attributes), Markdown cannot
// be broken out of its table cells, the table strips control characters.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCronTools, type CronTools } from '../../src/fleet/schedule.js';
import { buildEntry, totalsOf } from '../../src/report/compute.js';
import { middleCut, reportHtml } from '../../src/report/html.js';
import { reportMarkdown, reportTable } from '../../src/report/text.js';
import { plainPalette } from '../../src/output/view-table.js';
import type { ReportDocument } from '../../src/report/document.js';

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
    const md = reportMarkdown(doc());
    const row = md.split('\n').find((l) => l.startsWith('| \\<img'))!;
    expect(row).toBeDefined();
    // 15 cells (the last verify and restore test included): 16 unescaped pipes.
    expect(row.replace(/\\\|/g, '').split('|')).toHaveLength(17);
    expect(md).not.toContain('**x**');
    expect(md).not.toContain('\x1b');
  });

  it('a file (Markdown, HTML) dates the last success at the schedule\'s local time; the terminal says how long ago', () => {
    // A file is read later than it is made: "2 days ago" would go wrong with every day it sits in an audit folder.
    const md = reportMarkdown(doc());
    expect(md).toMatch(/\| 2026-03-27 02:40 UTC\+1 \| never \| never \|$/m);
    expect(reportHtml(doc())).toContain('<td class="text"><span class="nowrap">2026-03-27</span> 02:40 UTC+1</td>');
    const text = reportTable(doc(), { palette: plainPalette, width: 200, noHeaders: false, now: new Date('2026-03-31T00:00:00Z') });
    expect(text).toMatch(/ 3 days ago +never +never\n/);
  });

  it('the table strips control characters and lists the missed runs', () => {
    const text = reportTable(doc(), { palette: plainPalette, width: 200, noHeaders: false, now: new Date('2026-03-31T00:00:00Z') });
    expect(text).not.toContain('\x1b');
    expect(text).toContain('Jobs: 1 job, 5 expected runs, 1 completed, 4 missed; success 20.0%');
    expect(text).toMatch(/missed 2026-03-26 02:30 UTC\+1, 2026-03-28 02:30 UTC\+1, 2026-03-29 03:00 UTC\+2, 2026-03-30 02:30 UTC\+2/);
  });
});

describe('entries whose expected runs cannot be computed (snapshot resources: their record states no schedule)', () => {
  const since = Date.parse('2026-03-26T00:00:00Z');
  const until = Date.parse('2026-03-29T00:00:00Z');
  const resource = (id: number) =>
    buildEntry(
      {
        kind: 'resource',
        id,
        name: `disk ${id}`,
        createdAt: undefined,
        schedules: [{ id: null, cron: null, text: 'not stated by the service', timezone: 'UTC', status: 'active', unreadable: 'the record states no schedule' }],
        attempts: [{ id: `s${id}`, status: 'completed', startedAt: Date.parse('2026-03-27T01:00:30Z'), completedAt: Date.parse('2026-03-27T01:20:30Z'), manual: false, sizeBytes: 2048 }],
      },
      { since, until, graceMs: 3_600_000, now: until },
      tools,
    );
  function resourcesDoc(): ReportDocument {
    const entries = [resource(1), resource(2)];
    return {
      generated_at: new Date(until).toISOString(),
      window: { since: new Date(since).toISOString(), until: new Date(until).toISOString(), grace_seconds: 3600 },
      summary: { jobs: totalsOf([]), droplets: null, volumes: null, resources: totalsOf(entries) },
      jobs: [],
      droplets: null,
      volumes: null,
      resources: entries,
      notes: [],
    };
  }

  it('the totals say the expected runs cannot be computed, rather than 0 expected and 0 missed', () => {
    const d = resourcesDoc();
    expect(d.summary.resources).toMatchObject({ entries: 2, computable: 0, expected: 0 });
    const text = reportTable(d, { palette: plainPalette, width: 200, noHeaders: false, now: new Date(until) });
    expect(text).toContain('Snapshot resources (backups activated): 2 resources, expected runs cannot be computed, 2 completed, 2 of unknown schedule; success 100%\n');
    expect(reportMarkdown(d)).toContain('2 resources, expected runs cannot be computed, 2 completed');
  });

  it('a note every entry shares is written once, and the schedule shows no time zone it did not use', () => {
    const d = resourcesDoc();
    const text = reportTable(d, { palette: plainPalette, width: 200, noHeaders: false, now: new Date(until) });
    expect(text.match(/expected runs cannot be computed: the record states no schedule/g)).toHaveLength(1);
    expect(text).toContain('  all 2: expected runs cannot be computed: the record states no schedule\n');
    // Issue 23 §2: the schedule is unknown, and said so: nothing is missed, nothing is unscheduled.
    expect(text).toMatch(/^disk 1 +not stated by the service +unknown +1 +0 +0 +unknown +0; 1 schedule unknown /m);
    const md = reportMarkdown(d);
    expect(md.match(/the record states no schedule/g)).toHaveLength(1);
    expect(md).toContain('| `not stated by the service` |');
    const html = reportHtml(d);
    expect(html.match(/the record states no schedule/g)).toHaveLength(1);
    expect(html).toContain('<td class="text">not stated by the service</td>');
  });

  it('the calendar colours the days by the snapshots themselves, without an "unscheduled" dot on each', () => {
    const html = reportHtml(resourcesDoc());
    const strips = html.match(/<svg class="chart" id="calendar-resources-\d+"[^]*?<\/svg>/g)!;
    expect(strips).toHaveLength(2);
    for (const strip of strips) expect(strip).not.toContain('<circle');
    expect(html).toContain('2026-03-27: 1 snapshot, completed (schedule unknown: expected runs cannot be computed)');
    // A day without a snapshot is "schedule unknown" (its own colour and a "?"), not "no run expected".
    expect(html).toContain('2026-03-26: no snapshot (schedule unknown: expected runs cannot be computed)');
    for (const strip of strips) expect(strip).toContain('class="q">?</text>');
  });
});

describe('the HTML report, read by a person (issue 25 §8)', () => {
  const since = Date.parse('2026-10-27T00:00:00Z');
  const until = Date.parse('2026-11-27T12:00:00Z');
  function named(name: string, statuses: string[]) {
    return buildEntry(
      {
        kind: 'job',
        id: name,
        name,
        createdAt: undefined,
        schedules: [{ id: 1, cron: '0 4 * * *', text: '0 4 * * *', timezone: 'America/New_York', status: 'active' }],
        attempts: statuses.map((status, i) => ({ id: `b${i}`, status, startedAt: since + (i + 1) * 86_400_000 + 9 * 3_600_000, completedAt: since + (i + 1) * 86_400_000 + 9.2 * 3_600_000, manual: false, sizeBytes: 1 })),
      },
      { since, until, graceMs: 3_600_000, now: until },
      tools,
    );
  }
  function htmlOf(entries: ReturnType<typeof named>[]): string {
    return reportHtml({
      generated_at: new Date(until).toISOString(),
      window: { since: new Date(since).toISOString(), until: new Date(until).toISOString(), grace_seconds: 3600 },
      summary: { jobs: totalsOf(entries), droplets: null, volumes: null, resources: null },
      jobs: entries,
      droplets: null,
      volumes: null,
      resources: null,
      notes: [],
    });
  }

  it('failed and completed cells differ by a mark, not by colour alone', () => {
    const html = htmlOf([named('nightly', ['completed', 'failed', 'completed_with_errors', 'expired'])]);
    const strip = html.match(/<svg class="chart" id="calendar-jobs-0"[^]*?<\/svg>/)![0];
    expect(strip).toContain('<path d="M4 8.5 L7 11.5 L12 4.5" stroke="#ffffff"'); // completed: a tick
    expect(strip).toContain('<path d="M5 5 L11 11 M11 5 L5 11" stroke="#ffffff"'); // failed: a white cross
    expect(strip).toContain('<path d="M8 3.5 V9 M8 11 V12.5"'); // with errors: "!"
    expect(strip).toContain('<circle cx="8" cy="8" r="4" stroke="#ffffff"'); // expired: a slashed circle
  });

  it('the last date labels do not overlap: a fifth day next to the last gives way', () => {
    const html = htmlOf([named('nightly', ['completed'])]);
    const header = html.match(/<svg class="chart" id="calendar-jobs-days"[^]*?<\/svg>/)![0];
    const labels = [...header.matchAll(/>(\d\d-\d\d)<\/text>/g)].map((m) => m[1]);
    // 33 New York days (10-26 to 11-27): the first, every fifth day and the last; 11-25 (day 30) is two cells
    // from 11-27 and gives way (its label ran into the last one).
    expect(labels).toEqual(['10-26', '10-31', '11-05', '11-10', '11-15', '11-20', '11-27']);
  });

  it('names alike up to their end are cut in the middle, keeping the end that tells them apart', () => {
    expect(middleCut('server Cloud A prod-cloud-a 192.0.2.30', 28)).toBe('server Cloud…d-a 192.0.2.30');
    expect(middleCut('short', 28)).toBe('short');
    const html = htmlOf([named('server Cloud A prod-cloud-a 192.0.2.30', ['completed']), named('server Cloud A prod-cloud-a 192.0.2.37', ['completed'])]);
    expect(html).toContain('192.0.2.30</span>');
    expect(html).toContain('192.0.2.37</span>');
  });

  it('one time-zone style (UTC offsets), and the Figures table has the schedule in words as status writes it', () => {
    const html = htmlOf([named('nightly', ['completed'])]);
    expect(html).toContain('<td class="text">daily at 04:00 America/<wbr>New_York</td>');
    expect(html).not.toMatch(/\b(EST|EDT|GMT[+-]?\d*)\b/);
    expect(html).toMatch(/ UTC-5</);
  });
});
