// `backupctl report` as a user meets it: the built CLI against the emulator's
// demo team (healthy daily jobs, a 6-hourly one, crm-db-failing whose last
// three runs failed, archive files with nothing for five days, a manual
// backup of shop mysql 3.3 days ago). Checked: the document --json prints
// (against its own schema), the requests that went out, the table, Markdown,
// tsv, --output-file, --dry-run and the refusals of bad input. The counts
// asserted hold at any hour: the demo's backups follow the schedules up to
// fifteen minutes before the emulator started, a run that recent is pending,
// and its missed and failed runs are those of docs/demo-data.md.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { apiRequests, withEmulator } from '../helpers/emulator.js';
import { reportDocumentSchema, type ReportDocument, type ReportEntry } from '../../src/report/document.js';

const emu = withEmulator();
let cfg: ReturnType<typeof tempConfigDir>;
beforeAll(() => {
  cfg = tempConfigDir();
});
afterAll(() => cfg.cleanup());

const cli = (args: string[], env: Record<string, string | undefined> = {}) =>
  runCli(args, { env: { BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: emu.token, BACKUPCTL_CONFIG_DIR: cfg.dir, XDG_STATE_HOME: `${cfg.dir}/state`, COLUMNS: undefined, ...env } });
const sent = () => apiRequests(emu).filter((r) => String(r.headers['user-agent']).startsWith('backupctl/'));

async function report(args: string[]): Promise<ReportDocument> {
  const r = await cli(['report', '--json', ...args]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  // The document is what `schema report` describes.
  return reportDocumentSchema.parse(JSON.parse(r.stdout));
}

const byName = (doc: ReportDocument, name: string): ReportEntry => doc.jobs.find((j) => j.name === name)!;

/** Expected runs are partitioned by their outcomes. */
function expectPartition(e: ReportEntry): void {
  expect(e.expected).toBe(e.completed + e.completed_with_errors + e.failed + e.expired + e.in_progress + (e.missed ?? 0) + e.pending);
  expect(e.runs).toHaveLength(e.expected!);
  expect(e.missed_runs).toEqual(e.runs.filter((r) => r.outcome === 'missed').map((r) => r.expected_at));
}

describe('report --json', () => {
  it('counts expected runs per job from cron and time zone and matches them to the backups', async () => {
    emu.clearRequests();
    const doc = await report(['--since', '4d']);
    const span = Date.parse(doc.window.until) - Date.parse(doc.window.since);
    expect(span).toBe(4 * 86_400_000);
    expect(doc.window.grace_seconds).toBe(3600);
    expect(doc.jobs.map((j) => j.name)).toEqual([...doc.jobs.map((j) => j.name)].sort((a, b) => a!.localeCompare(b!)));
    expect(doc.jobs).toHaveLength(8);
    for (const j of doc.jobs) {
      expectPartition(j);
      expect(j.computable).toBe(true);
      // A daily job expects a run per day of the window: 3 to 5 over 96 hours (a 25-hour day in the window, or one at each end).
      if (j.name !== 'api postgres') expect(j.expected).toBeGreaterThanOrEqual(3);
    }
    // docs/demo-data.md: over the last 4 days api postgres missed one run (its 8th newest, k = 7) and failed
    // none; marketing site neither (its failed run, k = 12, is older).
    expect(byName(doc, 'api postgres')).toMatchObject({ missed: 1, failed: 0 });
    expect(byName(doc, 'marketing site')).toMatchObject({ missed: 0, failed: 0 });
    // Four runs a day, every 6 hours in UTC.
    expect(byName(doc, 'api postgres').expected).toBeGreaterThanOrEqual(16);
    expect(byName(doc, 'api postgres').runs.every((r) => /T(00|06|12|18):00:00/.test(r.expected_at))).toBe(true);
    // The manual backup 3.3 days ago fulfils nothing.
    const shop = byName(doc, 'shop mysql');
    expect(shop.unscheduled_manual).toBe(1);
    expect(shop.unscheduled_backups.filter((b) => b.manual).map((b) => b.status)).toEqual(['completed']);
    // crm-db-failing: its newest three runs failed.
    const crm = byName(doc, 'crm-db-failing');
    expect(crm.failed).toBe(3);
    expect(crm.unscheduled_backups).toEqual([]);
    expect(crm.runs.filter((r) => r.backup_id !== null).slice(-crm.failed).every((r) => r.outcome === 'failed')).toBe(true);
    // archive files: nothing for five days, so every settled run of the window is missed.
    const archive = byName(doc, 'archive files');
    expect(archive.completed).toBe(0);
    expect(archive.missed).toBe(archive.expected! - archive.pending);
    expect(archive.last_success).not.toBeNull();
    expect(Date.parse(archive.last_success!.started_at!)).toBeLessThan(Date.parse(doc.window.since));
    // Europe/Paris 00:15 every expected run, whatever the offset that day.
    for (const r of byName(doc, 'git server').runs) {
      expect(new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(r.expected_at))).toBe('00:15');
    }
    // Durations and sizes: the demo's files state their sizes.
    const web = byName(doc, 'web-01 files');
    expect(web.duration.count).toBeGreaterThan(0);
    expect(web.duration.p95_seconds!).toBeGreaterThanOrEqual(web.duration.median_seconds!);
    expect(web.size.known).toBe(web.size.of);
    expect(web.size.bytes).toBeGreaterThan(0);
    // The summary adds the jobs up.
    expect(doc.summary.jobs.expected).toBe(doc.jobs.reduce((n, j) => n + j.expected!, 0));
    expect(doc.summary.jobs.missed).toBe(doc.jobs.reduce((n, j) => n + j.missed!, 0));

    // Only GETs; the backups asked for start a grace before the window.
    const requests = sent();
    expect(requests.every((r) => r.method === 'GET')).toBe(true);
    const backupLists = requests.filter((r) => /^\/v1\/jobs\/[^/]+\/backups$/.test(r.path) && r.query.started_since !== undefined);
    expect(backupLists).toHaveLength(8);
    for (const r of backupLists) expect(Date.parse(String(r.query.started_since))).toBe(Date.parse(doc.window.since) - 3_600_000);
  });

  it('shows droplets, volumes and resources as far as their records allow, and says what cannot be computed', async () => {
    const doc = await report(['--since', '3d']);
    expect(doc.droplets!.map((d) => d.name)).toEqual(['db-primary', 'staging', 'web-01']);
    const staging = doc.droplets!.find((d) => d.name === 'staging')!;
    // Paused for days: its runs in the window are expected, and missed.
    expect(staging.expected).toBeGreaterThanOrEqual(3);
    expect(staging.missed! + staging.pending).toBe(staging.expected);
    expect(staging.notes.join(' ')).toMatch(/is paused now: its runs are still expected/);
    const db = doc.droplets!.find((d) => d.name === 'db-primary')!;
    expect(db.schedules[0]!.text).toMatch(/^every 6h from \d\d:00$/);
    expect(doc.volumes!.map((v) => v.name)).toEqual(['pgdata-fra1', 'uploads-fra1']);
    expect(doc.resources!.length).toBe(4);
    for (const r of doc.resources!) {
      expect(r.computable).toBe(false);
      expect(r.expected).toBeNull();
      expect(r.notes.join(' ')).toMatch(/does not state its schedule/);
    }
  });

  it('--job narrows to the jobs named and leaves the other sections out; --grace and --until apply', async () => {
    const doc = await report(['--job', 'shop mysql', '--job', 'api postgres', '--since', '2d', '--until', '1d', '--grace', '30m']);
    expect(doc.jobs.map((j) => j.name)).toEqual(['api postgres', 'shop mysql']);
    expect(doc.droplets).toBeNull();
    expect(doc.window.grace_seconds).toBe(1800);
    expect(Date.parse(doc.window.until) - Date.parse(doc.window.since)).toBe(86_400_000);
    // A closed window of 24 hours holds 4 runs of a 6-hour schedule, 5 when it starts on one.
    expect(byName(doc, 'api postgres').expected).toBeGreaterThanOrEqual(4);
    expect(byName(doc, 'api postgres').expected).toBeLessThanOrEqual(5);
  });
});

describe('report formats', () => {
  it('the table shows every job with its figures and the missed runs in the job\'s time zone', async () => {
    const r = await cli(['report', '--since', '4d', '-o', 'table']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^Report \d{4}-\d\d-\d\d \d\d:\d\d UTC to /);
    expect(r.stdout).toMatch(/NAME\s+SCHEDULE\s+EXPECTED\s+OK\s+ERRORS\s+FAILED\s+MISSED/);
    expect(r.stdout).toMatch(/^crm-db-failing\s+15 1 \* \* \* Europe\/Paris\s+\d+\s+\d+\s+\d+\s+[23]\s/m);
    expect(r.stdout).toMatch(/archive files: missed \d{4}-\d\d-\d\d 04:00 UTC-[45]/);
    expect(r.stdout).toContain('Droplets');
    expect(r.stdout).not.toMatch(/\x1b\[/);
  });

  it('Markdown: a summary, a table per section, escaped service text', async () => {
    const r = await cli(['report', '--since', '4d', '-o', 'md']);
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith('# Backup report\n')).toBe(true);
    expect(r.stdout).toContain('## Summary');
    expect(r.stdout).toMatch(/^\| web-01 files \| `0 2 \* \* \*` Europe\/Paris \| \d+ \|/m);
    expect(r.stdout).toMatch(/^\| archive files \| `0 4 \* \* \*` America\/New\\_York \|/m);
    expect(r.stdout).toContain('## Droplets');
  });

  it('tsv prints one line per job; -q the ids', async () => {
    const tsv = await cli(['report', '--since', '4d', '-o', 'tsv']);
    expect(tsv.code).toBe(0);
    const lines = tsv.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(8);
    const doc = await report(['--since', '4d']);
    for (const line of lines) {
      const [id, name, expected, completed, withErrors, failed, , missed] = line.split('\t');
      const j = doc.jobs.find((x) => x.id === id)!;
      expect([name, expected, completed, withErrors, failed, missed]).toEqual([j.name, String(j.expected), String(j.completed), String(j.completed_with_errors), String(j.failed), String(j.missed)]);
    }
    const q = await cli(['report', '--since', '4d', '-q']);
    expect(q.stdout.trimEnd().split('\n')).toEqual(lines.map((l) => l.split('\t')[0]));
  });

  it('--output-file writes the HTML atomically and nothing on stdout', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-report-'));
    try {
      const file = path.join(dir, 'report.html');
      const r = await cli(['report', '--since', '4d', '-o', 'html', '--output-file', file]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
      expect(readdirSync(dir)).toEqual(['report.html']);
      const html = readFileSync(file, 'utf8');
      expect(html.startsWith('<!doctype html>')).toBe(true);
      expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
      expect(html).not.toMatch(/<script|<link|<img|@import|url\(|https?:\/\/(?!www\.w3\.org\/2000\/svg)/i);
      expect(html).toContain('crm-db-failing');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('schema report describes the document', async () => {
    const r = await cli(['schema', 'report']);
    expect(r.code).toBe(0);
    const schema = JSON.parse(r.stdout) as { title: string; properties: Record<string, unknown> };
    expect(schema.title).toBe('backupctl report --json');
    expect(Object.keys(schema.properties)).toEqual(['generated_at', 'window', 'summary', 'jobs', 'droplets', 'volumes', 'resources', 'notes', 'check', 'assurance']);
  });
});

describe('report refuses bad input before sending anything', () => {
  const cases: Array<[string[], RegExp]> = [
    [['--since', 'yesterday'], /invalid value "yesterday" for --since: must be now, an age such as 30d/],
    [['--until', '2026-13-45'], /invalid value "2026-13-45" for --until/],
    [['--since', '1d', '--until', '2d'], /--since .* must be before --until/],
    [['--grace', 'soon'], /invalid value "soon" for --grace/],
    [['-o', 'html', '--json'], /--json and -o html ask for two formats/],
    // The allowed formats named are the report's: md and html too (it listed table, json, ndjson, tsv only).
    [['-o', 'pdf'], /^error: unknown output format "pdf" from --output; allowed: table, json, ndjson, tsv, md, html$/m],
    [['--output-file', '/nonexistent-dir/x.html'], /invalid value "\/nonexistent-dir\/x.html" for --output-file/],
  ];
  for (const [args, message] of cases) {
    it(`report ${args.join(' ')}`, async () => {
      emu.clearRequests();
      const r = await cli(['report', ...args]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(message);
      expect(sent()).toHaveLength(0);
    });
  }

  it('an unknown job is not found (exit 5) after the job list alone', async () => {
    emu.clearRequests();
    const r = await cli(['report', '--job', 'no such job']);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/no job with the id or name "no such job"/);
    expect(sent().map((q) => q.path)).toEqual(['/v1/jobs']);
  });

  it('--dry-run prints the first requests and sends none', async () => {
    emu.clearRequests();
    const r = await cli(['report', '--dry-run', '--since', '7d', '-o', 'table']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/curl .*\/v1\/jobs\?page_size=100/);
    expect(r.stdout).toMatch(/\/v1\/cloud_i\/droplets/);
    expect(r.stderr).toMatch(/started_since=/);
    expect(sent()).toHaveLength(0);
  });
});
