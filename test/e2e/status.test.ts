// `backupctl status` as a user meets it: the built CLI against the emulator's
// demo team, which holds a failing job (crm-db-failing) and a stale one
// (archive files). Checked: the document --json prints, the requests that
// went out (all GETs), the table, tsv and -q, --check's exit codes and lines,
// the Prometheus text parsed back, and --output-file.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { apiFetch, apiRequests, startTestEmulator } from '../helpers/emulator.js';
import type { Emulator, EmulatorOptions } from '../../src/emulator/index.js';

interface Summary {
  id: string | number | null;
  status: string | null;
  created_at?: string | null;
  started_at?: string | null;
  completed_at: string | null;
  age_seconds: number | null;
}
interface JobStatus {
  id: string;
  name: string | null;
  compute: { type: string | null; server_id: number | null; server_name: string | null; host: string | null; region: string | null };
  schedules: Array<{ id: number | null; cron: string | null; timezone: string | null; status: string | null; words: string | null; next_run: string | null }>;
  next_run: string | null;
  newest: Summary | null;
  last_completed: Summary | null;
  recent: string[];
  health: 'failing' | 'stale' | 'healthy' | 'unknown';
  max_age_seconds: number;
  max_age_from: 'flag' | 'schedule' | 'default';
  within_max_age: boolean;
  storage: string[];
}
interface Machine {
  id: number | string;
  name: string | null;
  status: string | null;
  frequency_hours: number | null;
  newest: Summary | null;
  last_completed: Summary | null;
}
interface StatusDocument {
  generated_at: string;
  allow_errors: boolean;
  summary: Record<string, number>;
  jobs: JobStatus[];
  droplets: Machine[] | null;
  volumes: Machine[] | null;
  resources: Array<{ id: number; type: string | null; newest: Summary | null; last_completed: Summary | null }> | null;
}
interface ServiceJob {
  id: string;
  name: string;
  schedule: Array<{ cron: string; timezone: string }>;
  storage: Array<{ name: string }>;
  compute: { type: string; server?: { host: string } };
}
interface ServiceBackup {
  id: string;
  status: string;
  created_at: string;
  completed_at: string | null;
}

// ---------------------------------------------------------------------------
// Helpers

function harness(opts: EmulatorOptions = {}) {
  const h = {
    emu: undefined as unknown as Emulator,
    cfg: undefined as unknown as ReturnType<typeof tempConfigDir>,
    cli: (args: string[], env: Record<string, string | undefined> = {}) =>
      runCli(args, {
        // The state folder (verify's ledger, restore tests) is the test's own, not the user's.
        env: { BACKUPCTL_BASE_URL: h.emu.url, BACKUPCTL_TOKEN: h.emu.token, BACKUPCTL_CONFIG_DIR: h.cfg.dir, XDG_STATE_HOME: `${h.cfg.dir}/state`, COLUMNS: undefined, ...env },
      }),
    /** What the CLI sent (the tests' own look-ups past the CLI are left out). */
    sent: () => apiRequests(h.emu).filter((r) => String(r.headers['user-agent']).startsWith('backupctl/')),
    async jobs(): Promise<ServiceJob[]> {
      const res = await apiFetch(h.emu, '/v1/jobs?page_size=100');
      return ((await res.json()) as { data: ServiceJob[] }).data;
    },
    async backups(jobId: string, query = ''): Promise<ServiceBackup[]> {
      const res = await apiFetch(h.emu, `/v1/jobs/${jobId}/backups?page_size=100&sort=-created_at${query}`);
      return ((await res.json()) as { data: ServiceBackup[] }).data;
    },
    async status(args: string[] = []): Promise<StatusDocument> {
      const r = await h.cli(['status', '--json', ...args]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      return JSON.parse(r.stdout) as StatusDocument;
    },
  };
  beforeAll(async () => {
    h.emu = await startTestEmulator(opts);
    h.cfg = tempConfigDir();
  });
  afterAll(async () => {
    await h.emu.close();
    h.cfg.cleanup();
  });
  return h;
}

/** The wall clock of an instant in a zone: [hour, minute]. */
function wallClock(iso: string, tz: string): [number, number] {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: tz, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(new Date(iso));
  const get = (t: string) => Number(parts.find((p) => p.type === t)!.value);
  return [get('hour'), get('minute')];
}

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}
interface Exposition {
  help: Map<string, string>;
  type: Map<string, string>;
  samples: Sample[];
}

/**
 * A small reader of the Prometheus text format: HELP and TYPE lines, samples
 * with escaped label values. Throws on any line it does not understand and on
 * a sample whose family has no TYPE yet, as the format asks TYPE to come first.
 */
function parseExposition(text: string): Exposition {
  const out: Exposition = { help: new Map(), type: new Map(), samples: [] };
  if (!text.endsWith('\n')) throw new Error('the text must end with a line feed');
  for (const line of text.slice(0, -1).split('\n')) {
    let m = /^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (m) {
      out.help.set(m[1]!, m[2]!.replace(/\\n/g, '\n').replace(/\\\\/g, '\\'));
      continue;
    }
    m = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (m) {
      if (out.type.has(m[1]!)) throw new Error(`second TYPE for ${m[1]}`);
      out.type.set(m[1]!, m[2]!);
      continue;
    }
    m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample: ${line}`);
    const [, name, rawLabels = '', rawValue] = m;
    if (!out.type.has(name!)) throw new Error(`sample before its TYPE: ${line}`);
    const labels: Record<string, string> = {};
    let rest = rawLabels;
    while (rest.length) {
      const lm = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(rest);
      if (!lm) throw new Error(`bad labels: ${rawLabels}`);
      let i = lm[0].length;
      let value = '';
      for (;;) {
        const ch = rest[i];
        if (ch === undefined) throw new Error(`unterminated label value: ${rawLabels}`);
        if (ch === '"') break;
        if (ch === '\\') {
          const next = rest[i + 1];
          if (next === 'n') value += '\n';
          else if (next === '\\' || next === '"') value += next;
          else throw new Error(`bad escape in ${rawLabels}`);
          i += 2;
          continue;
        }
        value += ch;
        i++;
      }
      labels[lm[1]!] = value;
      rest = rest.slice(i + 1);
      if (rest.startsWith(',')) rest = rest.slice(1);
      else if (rest.length) throw new Error(`bad labels: ${rawLabels}`);
    }
    const value = rawValue === '+Inf' ? Infinity : rawValue === '-Inf' ? -Infinity : Number(rawValue);
    if (Number.isNaN(value) && rawValue !== 'NaN') throw new Error(`bad value: ${line}`);
    out.samples.push({ name: name!, labels, value });
  }
  return out;
}

const sample = (e: Exposition, name: string, labels: Record<string, string>) =>
  e.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

// ---------------------------------------------------------------------------

describe('status of the demo team', () => {
  const h = harness();
  let doc: StatusDocument;
  let service: ServiceJob[];

  beforeAll(async () => {
    service = await h.jobs();
    h.emu.clearRequests();
    doc = await h.status();
  });

  it('--json lists every job once, worst first: the failing job, the stale one, then the healthy', () => {
    expect(doc.jobs.map((j) => j.id).sort()).toEqual(service.map((j) => j.id).sort());
    expect(doc.jobs.map((j) => [j.name, j.health])).toEqual([
      ['crm-db-failing', 'failing'],
      ['archive files', 'stale'],
      ...service
        .map((j) => j.name)
        .filter((n) => n !== 'crm-db-failing' && n !== 'archive files')
        .sort((a, b) => a.localeCompare(b))
        .map((n) => [n, 'healthy']),
    ]);
    expect(doc.summary).toEqual({ failing: 1, stale: 1, healthy: service.length - 2, unknown: 0 });
    expect(doc.allow_errors).toBe(false);
    expect(Date.parse(doc.generated_at)).not.toBeNaN();
  });

  it('gives each job its compute, storage names and schedules in words with the next run in their time zone', () => {
    for (const j of doc.jobs) {
      const s = service.find((x) => x.id === j.id)!;
      expect(j.storage).toEqual(s.storage.map((x) => x.name));
      expect(j.compute.type).toBe(s.compute.type);
      if (s.compute.type === 'server') expect(j.compute.host).toBe(s.compute.server!.host);
      expect(j.schedules).toHaveLength(s.schedule.length);
      for (const [i, sch] of j.schedules.entries()) {
        expect(sch).toMatchObject({ cron: s.schedule[i]!.cron, timezone: s.schedule[i]!.timezone, status: 'active' });
        // The next run is ahead, within a day of the wall clock (every demo schedule runs at least daily), on the expression's wall clock.
        const next = Date.parse(sch.next_run!);
        expect(next).toBeGreaterThan(Date.parse(doc.generated_at));
        // A day of the wall clock: 25 hours on a fall-back day.
        expect(next - Date.parse(doc.generated_at)).toBeLessThanOrEqual(25 * 3600_000);
        const [minute, hour] = sch.cron!.split(' ');
        const [h0, m0] = wallClock(sch.next_run!, sch.timezone!);
        expect(m0).toBe(Number(minute));
        // On a spring-forward day a wall-clock time in the gap is expected at the first minute after it
        // (docs/report.md): the hour then reads one more, and the wall clock an hour earlier is two hours back.
        const [hBefore] = wallClock(new Date(next - 3600_000).toISOString(), sch.timezone!);
        const gap = (h0 - hBefore + 24) % 24 === 2 ? 1 : 0;
        if (/^\d+$/.test(hour!)) expect(h0).toBe(Number(hour) + gap);
        else expect((h0 - gap) % Number(hour!.split('/')[1])).toBe(0);
      }
      expect(j.next_run).toBe(j.schedules.map((x) => x.next_run).sort()[0]);
    }
    const byName = (name: string) => doc.jobs.find((j) => j.name === name)!;
    expect(byName('web-01 files').schedules[0]!.words).toBe('daily at 02:00 Europe/Paris');
    expect(byName('events mongodb').schedules[0]!.words).toBe('daily at 02:45 Asia/Tokyo');
    expect(byName('api postgres').schedules[0]!.words).toBe('on the hour, every 6 hours UTC');
    expect(byName('marketing site').compute).toMatchObject({ type: 'ss_serverless', region: 'EU' });
  });

  it('takes the newest backup, the newest completed one and the last 10 statuses from the service', async () => {
    for (const j of doc.jobs) {
      const all = await h.backups(j.id);
      expect(j.recent).toEqual(all.slice(0, 10).map((b) => b.status));
      expect(j.newest).toMatchObject({ id: all[0]!.id, status: all[0]!.status, created_at: all[0]!.created_at });
      const completed = all.find((b) => b.status === 'completed')!;
      expect(j.last_completed).toMatchObject({ id: completed.id, completed_at: completed.completed_at });
      const age = (Date.parse(doc.generated_at) - Date.parse(completed.completed_at!)) / 1000;
      expect(Math.abs(j.last_completed!.age_seconds! - age)).toBeLessThanOrEqual(1);
      // Issue 29: the max age comes from the schedule: its interval + 25% (at least 2h); a daily run's interval
      // is 25h across a daylight-saving change in the month around now.
      expect(j.max_age_from).toBe('schedule');
      if (j.name === 'api postgres') expect(j.max_age_seconds).toBe(8 * 3600);
      else expect([30 * 3600, 31.25 * 3600]).toContain(j.max_age_seconds);
    }
    const failing = doc.jobs[0]!;
    expect(failing.recent.slice(0, 3)).toEqual(['failed', 'failed', 'failed']);
    expect(failing.within_max_age).toBe(false);
    expect(doc.jobs[1]!.last_completed!.age_seconds!).toBeGreaterThan(4 * 86400);
  });

  it('shows droplets and volumes that take snapshots and the resources with backups activated', async () => {
    expect(doc.droplets!.map((d) => [d.name, d.status])).toEqual([
      ['web-01', 'active'],
      ['db-primary', 'active'],
      ['staging', 'paused'],
    ]);
    expect(doc.volumes!.map((v) => v.name)).toEqual(['pgdata-fra1', 'uploads-fra1']);
    const dbPrimary = doc.droplets!.find((d) => d.name === 'db-primary')!;
    const snaps = (await (await apiFetch(h.emu, `/v1/cloud_i/droplets/${dbPrimary.id}/snapshots?sort=-started_at&page_size=100`)).json()) as {
      data: Array<{ id: number; status: string }>;
    };
    expect(dbPrimary.frequency_hours).toBe(6);
    expect(dbPrimary.newest).toMatchObject({ id: snaps.data[0]!.id, status: snaps.data[0]!.status });
    expect(dbPrimary.last_completed).toMatchObject({ id: snaps.data.find((s) => s.status === 'completed')!.id, status: 'completed' });
    const resources = (await (await apiFetch(h.emu, '/v1/snapshots/resources?page_size=100')).json()) as { data: Array<{ id: number; backups_activated: boolean }> };
    expect(doc.resources!.map((r) => r.id)).toEqual(resources.data.filter((r) => r.backups_activated).map((r) => r.id));
    for (const r of doc.resources!) expect(r.newest).not.toBeNull();
  });

  it('only reads: the job list, a page of newest backups per job, and the snapshot sources', () => {
    const sent = h.sent();
    expect(new Set(sent.map((r) => r.method))).toEqual(new Set(['GET']));
    expect(sent.filter((r) => r.path === '/v1/jobs')).toEqual([expect.objectContaining({ query: { page_size: '100' } })]);
    for (const j of doc.jobs) {
      expect(sent.filter((r) => r.path === `/v1/jobs/${j.id}/backups`)).toEqual([
        expect.objectContaining({ query: { sort: '-created_at', page_size: '15' } }),
      ]);
    }
    expect(sent.filter((r) => r.path === '/v1/cloud_i/droplets')).toEqual([expect.objectContaining({ query: { page_size: '100' } })]);
    expect(sent.filter((r) => r.path === '/v1/cloud_i/volumes')).toHaveLength(1);
    expect(sent.filter((r) => r.path === '/v1/snapshots/resources')).toHaveLength(1);
    // Only droplets and volumes with a schedule have their snapshots read.
    const snapshotReads = sent.filter((r) => /^\/v1\/cloud_i\/(droplets|volumes)\/[^/]+\/snapshots$/.test(r.path));
    expect(snapshotReads).toHaveLength(doc.droplets!.length + doc.volumes!.length);
    for (const r of snapshotReads) expect(r.query).toEqual({ sort: '-started_at', page_size: '15' });
    expect(sent.filter((r) => r.path === '/v1/snapshots')[0]!.query).toEqual({ sort: '-started_at', page_size: '100' });
  });

  it('prints a table: one row per job worst first, each status its own mark, sections after', async () => {
    const r = await h.cli(['status', '-o', 'table'], { LC_ALL: 'C.UTF-8' });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    // Piped: no colour, whole cells.
    expect(r.stdout).not.toMatch(/\u001b/);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('Jobs');
    expect(lines[1]!.split(/\s{2,}/)).toEqual(['Health', 'Name', 'Compute', 'Schedule', 'Newest backup', 'Last success', 'New → old', 'Next run', 'Storage', 'Verify', 'Restore test']);
    const rows = lines.slice(2, 2 + doc.jobs.length);
    expect(rows.map((l) => l.split(/\s{2,}/)[1])).toEqual(doc.jobs.map((j) => j.name));
    expect(rows[0]).toMatch(/^failing\s+crm-db-failing\s+203\.0\.113\.\d+\s+daily at 01:15 Europe\/Paris\s+failed .+ ago\s+\d+ days ago\s+✖✖✖✔+\s+in /);
    expect(rows[1]).toMatch(/^stale\s+archive files\s+agent\s+daily at 04:00 America\/New_York\s+completed \d days ago/);
    for (const [i, j] of doc.jobs.entries()) {
      const marks = [...j.recent].map((s) => ({ completed: '✔', completed_with_errors: '!', failed: '✖' })[s as 'completed']).join('');
      expect(rows[i]).toContain(`  ${marks}  `);
    }
    expect(r.stdout).toContain('✔ completed');
    expect(r.stdout).toContain('✖ failed');
    expect(r.stdout).toContain(`${doc.jobs.length} jobs: 1 failing, 1 stale, ${doc.jobs.length - 2} healthy. Max age from each job's schedule (interval + 25%, at least 2h).`);
    for (const title of ['Droplets', 'Volumes', 'Snapshot resources (backups activated)']) expect(lines).toContain(title);
    // Issue 29: droplets, volumes and resources have a health column too.
    expect(r.stdout).toMatch(/^healthy\s+db-primary\s+active\s+6h\s+\S+ .* ago/m);
    expect(r.stdout).toMatch(/^stale\s+staging\s+paused\s+24h\s/m);

    // A locale without UTF-8 gets ASCII marks.
    const ascii = await h.cli(['status', '-o', 'table', '--job', 'crm-db-failing'], { LC_ALL: 'C' });
    expect(ascii.stdout.split('\n')[2]).toMatch(/\sXXX\++\s/);
    expect(ascii.stdout).toContain('+ completed  X failed');
    // Narrowed to one job, the other sections are not read.
    expect(ascii.stdout).not.toContain('Droplets');
  });

  it('prints one tsv line per job, and only the ids with -q, worst first', async () => {
    const tsv = await h.cli(['status']);
    expect(tsv.code).toBe(0);
    const lines = tsv.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(doc.jobs.length);
    const first = lines[0]!.split('\t');
    expect(first).toHaveLength(12);
    // Never verified, never restore-tested here: it says so; the catalog holds none of its backups: no anomalies column value (issue 33).
    expect(first.slice(9)).toEqual(['never', 'never', '']);
    expect(first.slice(0, 2)).toEqual(['failing', 'crm-db-failing']);
    expect(first[6]).toBe(doc.jobs[0]!.recent.join(','));
    expect(first[7]).toBe(doc.jobs[0]!.next_run);
    const q = await h.cli(['status', '-q']);
    expect(q.stdout).toBe(doc.jobs.map((j) => `${j.id}\n`).join(''));
    const cols = await h.cli(['status', '--columns', 'id,health,age']);
    expect(cols.stdout.split('\n')[0]).toMatch(new RegExp(`^${doc.jobs[0]!.id}\tfailing\t\\d+$`));
  });

  it('--check exits 9 with one line per job that has no completed backup within its max age', async () => {
    const r = await h.cli(['status', '--check', '-q']);
    expect(r.code).toBe(9);
    // -q prints the ids of the jobs that fail the check, and no others (issue 16 §2.6).
    expect(r.stdout).toBe(`${doc.jobs[0]!.id}\n${doc.jobs[1]!.id}\n`);
    const lines = r.stderr.trimEnd().split('\n');
    // Issue 29: droplets, volumes and resources are judged too (the paused droplet, the failed volume snapshot).
    expect(lines[0]).toBe(`error: status --check: 2 failing, 2 stale of ${doc.jobs.length} jobs and 9 droplets, volumes and snapshot resources`);
    expect(lines).toHaveLength(5);
    expect(lines[1]).toMatch(new RegExp(`^  crm-db-failing \\(${doc.jobs[0]!.id}\\): newest backup failed .*; newest completed backup \\d+h\\d+m old, max age \\d+h(\\d+m)? from its schedule$`));
    expect(lines[2]).toMatch(new RegExp(`^  archive files \\(${doc.jobs[1]!.id}\\): newest completed backup \\d+h\\d+m old, max age \\d+h(\\d+m)? from its schedule$`));
    expect(lines[3]).toMatch(/^ {2}droplet staging \(\d+\): stale: paused; /);
    expect(lines[4]).toMatch(/^ {2}volume uploads-fra1 \(.+\): failing: newest snapshot failed /);
  });

  it('--check: a max age that covers every job clears staleness only (a failing job stays failing, issue 29); a max age per job narrows it again', async () => {
    const wide = await h.cli(['status', '--check', '--max-age', '7d', '-q']);
    expect(wide.code).toBe(9);
    expect(wide.stdout).toBe(`${doc.jobs[0]!.id}\n`);
    expect(wide.stderr).toMatch(/^ {2}crm-db-failing \(.*\): newest backup failed [^;]*$/m);
    expect(wide.stderr).not.toMatch(/archive files/);
    const perJob = await h.cli(['status', '--check', '--max-age', '7d', '--max-age', 'archive files=2d', '-q']);
    expect(perJob.code).toBe(9);
    expect(perJob.stderr).toMatch(/^ {2}archive files \(.*max age 2d \(--max-age\)$/m);
    const byId = await h.cli(['status', '--check', '--max-age', '7d', '--max-age', `${doc.jobs[0]!.id}=1h`, '--json']);
    expect(byId.code).toBe(9);
    const narrowed = JSON.parse(byId.stdout) as StatusDocument;
    expect(narrowed.jobs.find((j) => j.name === 'crm-db-failing')).toMatchObject({ max_age_seconds: 3600, within_max_age: false });
    expect(narrowed.jobs.find((j) => j.name === 'archive files')).toMatchObject({ max_age_seconds: 7 * 86400, max_age_from: 'flag', within_max_age: true, health: 'healthy' });
    const healthy = await h.cli(['status', '--check', '--job', 'web-01 files']);
    expect(healthy.code).toBe(0);
  });

  it('--job narrows to a job by name or id; a job that does not exist is exit 5', async () => {
    const byName = await h.status(['--job', 'shop mysql']);
    expect(byName.jobs.map((j) => j.name)).toEqual(['shop mysql']);
    expect(byName).toMatchObject({ droplets: null, volumes: null, resources: null });
    const id = doc.jobs[1]!.id;
    h.emu.clearRequests();
    const byId = await h.status(['--job', id, '--job', 'web-01 files']);
    expect(byId.jobs.map((j) => j.name)).toEqual(['archive files', 'web-01 files']);
    expect(h.sent().filter((r) => /\/backups$/.test(r.path))).toHaveLength(2);
    expect(h.sent().some((r) => r.path.startsWith('/v1/cloud_i') || r.path.startsWith('/v1/snapshots'))).toBe(false);
    const missing = await h.cli(['status', '--job', 'no such job']);
    expect(missing.code).toBe(5);
    expect(missing.stderr).toBe('error: no job with the id or name "no such job"\n  See backupctl jobs list.\n');
  });

  it('-o prometheus prints metrics that parse back and agree with --json', async () => {
    const r = await h.cli(['status', '-o', 'prometheus']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const e = parseExposition(r.stdout);
    for (const name of e.type.keys()) {
      expect(name.startsWith('backupctl_')).toBe(true);
      expect(e.help.get(name)).toBeTruthy();
      expect(e.type.get(name)).toBe('gauge');
    }
    for (const s of e.samples) expect(e.type.has(s.name)).toBe(true);
    expect(e.help.get('backupctl_job_backups')).toMatch(/last 10/);
    const [generated] = sample(e, 'backupctl_status_generated_timestamp_seconds', {});
    expect(generated!.labels).toEqual({});
    for (const j of doc.jobs) {
      const labels = { job_id: j.id, job_name: j.name! };
      expect(sample(e, 'backupctl_job_last_success_timestamp_seconds', labels).map((s) => s.value)).toEqual([Date.parse(j.last_completed!.completed_at!) / 1000]);
      const [age] = sample(e, 'backupctl_job_last_completed_age_seconds', labels);
      const [last] = sample(e, 'backupctl_job_last_success_timestamp_seconds', labels);
      expect(Math.abs(age!.value - (generated!.value - last!.value))).toBeLessThanOrEqual(1);
      const newest = sample(e, 'backupctl_job_newest_backup_status', labels);
      expect(newest.filter((s) => s.value === 1).map((s) => s.labels.status)).toEqual([j.newest!.status]);
      expect(newest.map((s) => s.labels.status)).toEqual(expect.arrayContaining(['completed', 'completed_with_errors', 'failed', 'running']));
      const health = sample(e, 'backupctl_job_health', labels);
      expect(health.filter((s) => s.value === 1).map((s) => s.labels.health)).toEqual([j.health]);
      for (const s of sample(e, 'backupctl_job_backups', labels)) {
        expect(s.value).toBe(j.recent.filter((x) => x === s.labels.status).length);
      }
      expect(sample(e, 'backupctl_job_backups', labels).reduce((n, s) => n + s.value, 0)).toBe(j.recent.length);
      expect(sample(e, 'backupctl_job_max_age_seconds', labels).map((s) => s.value)).toEqual([j.max_age_seconds]);
      expect(sample(e, 'backupctl_job_within_max_age', labels).map((s) => s.value)).toEqual([j.within_max_age ? 1 : 0]);
      expect(sample(e, 'backupctl_job_next_run_timestamp_seconds', labels).map((s) => s.value)).toEqual([Date.parse(j.next_run!) / 1000]);
    }
  });

  it('-o prometheus exports droplets, volumes and snapshot resources too, agreeing with --json', async () => {
    const r = await h.cli(['status', '-o', 'prometheus']);
    expect(r.code).toBe(0);
    const e = parseExposition(r.stdout);
    const [generated] = sample(e, 'backupctl_status_generated_timestamp_seconds', {});
    const things = [
      ...doc.droplets!.map((m) => ({ ...m, kind: 'droplet', id: String(m.id), name: m.name!, hours: m.frequency_hours })),
      ...doc.volumes!.map((m) => ({ ...m, kind: 'volume', id: String(m.id), name: m.name!, hours: m.frequency_hours })),
      ...doc.resources!.map((x) => {
        const r = x as typeof x & { last_known_ip: string; frequency: string | number | null };
        return { ...x, kind: 'resource', id: String(x.id), name: r.last_known_ip, hours: Number(String(r.frequency ?? '').replace(/^h/i, '')) || null };
      }),
    ];
    expect(things.filter((t) => t.kind === 'droplet').length).toBeGreaterThan(0);
    expect(things.filter((t) => t.kind === 'volume').length).toBeGreaterThan(0);
    expect(things.filter((t) => t.kind === 'resource').length).toBeGreaterThan(0);
    const seen = new Set<string>();
    for (const t of things) {
      const labels = { kind: t.kind, id: String(t.id), name: t.name };
      const newest = sample(e, 'backupctl_snapshot_newest_status', labels);
      expect(newest.filter((s) => s.value === 1).map((s) => s.labels.status), t.name).toEqual(t.newest ? [t.newest.status] : []);
      expect(newest.map((s) => s.labels.status)).toEqual(expect.arrayContaining(['completed', 'failed', 'expired', 'in-progress']));
      const done = t.last_completed;
      expect(sample(e, 'backupctl_snapshot_last_completed_timestamp_seconds', labels).map((s) => s.value)).toEqual(
        done ? [Date.parse(done.completed_at ?? done.started_at!) / 1000] : [],
      );
      const [age] = sample(e, 'backupctl_snapshot_last_completed_age_seconds', labels);
      if (done) expect(Math.abs(age!.value - (generated!.value - Date.parse(done.completed_at!) / 1000))).toBeLessThanOrEqual(1);
      // The rule of README (Fleet health): failing, else unknown, else stale past frequency + 2h (26h unknown), else healthy.
      const maxAge = t.hours ? t.hours * 3600 + 7200 : 26 * 3600;
      const expected =
        t.newest?.status === 'failed' || t.newest?.status === 'expired' ? 'failing' : !done ? 'unknown' : done.age_seconds! > maxAge ? 'stale' : 'healthy';
      const health = sample(e, 'backupctl_snapshot_health', labels);
      expect(health.map((s) => s.labels.health).sort()).toEqual(['failing', 'healthy', 'stale', 'unknown']);
      expect(health.filter((s) => s.value === 1).map((s) => s.labels.health), `${t.kind} ${t.name}`).toEqual([expected]);
      seen.add(expected);
    }
    // The demo has something failing and something healthy among them, so both ends are exercised.
    expect(seen).toContain('failing');
    expect(seen).toContain('healthy');
  });

  it('--output-file writes the whole output by rename and nothing to stdout', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-status-'));
    try {
      const file = path.join(dir, 'backupctl.prom');
      const r = await h.cli(['status', '-o', 'prometheus', '--output-file', file, '--check']);
      expect(r.code).toBe(9);
      expect(r.stdout).toBe('');
      const e = parseExposition(readFileSync(file, 'utf8'));
      expect(new Set(sample(e, 'backupctl_job_health', {}).map((s) => s.labels.job_id))).toEqual(new Set(doc.jobs.map((j) => j.id)));
      // Replaced whole on the next run; no temporary file left beside it.
      const again = await h.cli(['status', '--json', '--output-file', file]);
      expect(again.code).toBe(0);
      expect((JSON.parse(readFileSync(file, 'utf8')) as StatusDocument).jobs).toHaveLength(doc.jobs.length);
      expect(readdirSync(dir)).toEqual(['backupctl.prom']);
      const nowhere = await h.cli(['status', '--output-file', path.join(dir, 'missing', 'x.prom')]);
      expect(nowhere.code).toBe(2);
      expect(nowhere.stderr).toMatch(/^error: invalid value ".*x\.prom" for --output-file: cannot write in /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses bad flags with exit 2 before sending anything', async () => {
    h.emu.clearRequests();
    const cases: Array<[string[], RegExp]> = [
      [['--max-age', '26x'], /^error: invalid value "26x" for --max-age: expected a duration/],
      [['--max-age', '=2d'], /^error: invalid value "=2d" for --max-age: the job before "=" is empty/],
      [['-o', 'prometheus', '--json'], /^error: --json and -o prometheus ask for two formats/],
      [['--columns', 'nope'], /^error: Unknown column "nope" in --columns/],
    ];
    for (const [args, message] of cases) {
      const r = await h.cli(['status', ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe('');
    }
    expect(h.sent()).toEqual([]);
    // A max age for a job that does not exist is a typo to report, not a check to skip.
    const unknown = await h.cli(['status', '--check', '--max-age', 'no such job=2d']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('error: invalid value "no such job=2d" for --max-age: no job has the id or name "no such job"\n');
    // Other commands keep refusing the format.
    const other = await h.cli(['jobs', 'list', '-o', 'prometheus']);
    expect(other.code).toBe(2);
  });

  it('--dry-run prints the first requests and sends none', async () => {
    h.emu.clearRequests();
    const r = await h.cli(['status', '--dry-run', '-o', 'table']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`curl -X GET '${h.emu.url}/v1/jobs?page_size=100'`);
    expect(r.stdout).toContain(`'${h.emu.url}/v1/cloud_i/droplets?page_size=100'`);
    expect(r.stdout).not.toContain(h.emu.token);
    expect(h.sent()).toEqual([]);
  });

  it('reports a section it cannot read as a warning and shows the rest', async () => {
    h.emu.setFaults([{ fault: '500', path: '^/v1/cloud_i/volumes$' }]);
    try {
      const r = await h.cli(['status', '--json'], { BACKUPCTL_RETRY_BASE: '1ms', BACKUPCTL_RETRY_MAX_WAIT: '5ms' });
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/^warning: could not read volumes: 500 Internal Server Error: GET \/v1\/cloud_i\/volumes/);
      const partial = JSON.parse(r.stdout) as StatusDocument;
      expect(partial.volumes).toBeNull();
      expect(partial.droplets).toHaveLength(3);
      expect(partial.jobs).toHaveLength(doc.jobs.length);
    } finally {
      h.emu.setFaults([]);
    }
    // The jobs are what status is for: failing to read them fails the command.
    h.emu.setFaults([{ fault: '500', path: '^/v1/jobs/[^/]+/backups$', count: 100 }]);
    try {
      const r = await h.cli(['status', '--check'], { BACKUPCTL_RETRY_BASE: '1ms', BACKUPCTL_RETRY_MAX_WAIT: '5ms' });
      expect(r.code).toBe(6);
      expect(r.stdout).toBe('');
    } finally {
      h.emu.setFaults([]);
    }
  });

  it('schema status describes the --json document', async () => {
    const r = await h.cli(['schema', 'status']);
    expect(r.code).toBe(0);
    const schema = JSON.parse(r.stdout) as { title: string; type: string; required: string[]; properties: Record<string, { items?: { required?: string[]; properties?: Record<string, { enum?: string[] }> } }> };
    expect(schema.title).toBe('backupctl status --json');
    expect(schema.required).toEqual(['generated_at', 'allow_errors', 'summary', 'snapshot_summary', 'jobs', 'droplets', 'volumes', 'resources']);
    const job = schema.properties.jobs!.items!;
    expect(job.required).toEqual(expect.arrayContaining(Object.keys(doc.jobs[0]!)));
    expect(Object.keys(doc.jobs[0]!).sort()).toEqual(Object.keys(job.properties!).sort());
    expect(job.properties!.health!.enum).toEqual(['failing', 'stale', 'healthy', 'unknown']);
  });
});

describe('status as backups come and go', () => {
  // Started backups end completed_with_errors here (jobs named with "fail" still fail).
  const h = harness({ backupOutcome: 'completed_with_errors' });

  async function startAndWait(jobId: string, until: (b: ServiceBackup) => boolean): Promise<ServiceBackup> {
    const res = await apiFetch(h.emu, `/v1/jobs/${jobId}/backups/start`, { method: 'POST', json: { is_manual: true } });
    expect(res.status).toBe(202);
    const { backup_id } = (await res.json()) as { backup_id: string };
    for (let i = 0; i < 500; i++) {
      const found = (await h.backups(jobId)).find((b) => b.id === backup_id)!;
      if (until(found)) return found;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`backup ${backup_id} did not end`);
  }

  it('counts completed_with_errors as failed unless --allow-errors', async () => {
    const web = (await h.jobs()).find((j) => j.name === 'web-01 files')!;
    const fresh = await startAndWait(web.id, (b) => b.status === 'completed_with_errors');

    const strict = (await h.status(['--job', web.id])).jobs[0]!;
    expect(strict).toMatchObject({ health: 'failing', newest: { id: fresh.id, status: 'completed_with_errors' } });
    expect(strict.last_completed!.status).toBe('completed');
    expect(strict.recent[0]).toBe('completed_with_errors');

    const lenient = await h.status(['--job', web.id, '--allow-errors']);
    expect(lenient.allow_errors).toBe(true);
    expect(lenient.jobs[0]).toMatchObject({ health: 'healthy', last_completed: { id: fresh.id, status: 'completed_with_errors' } });

    // With a max age only the new backup meets, --check hinges on --allow-errors. A seeded
    // run can have completed just 30 s before the emulator started (a daily run, at some
    // hours of the day), so the max age is shorter than that.
    const check = await h.cli(['status', '--check', '--job', web.id, '--max-age', '20s', '-q']);
    expect(check.code).toBe(9);
    expect(check.stderr).toMatch(/web-01 files .*: newest backup completed_with_errors just now; newest completed backup \S+ old, max age 20s \(--max-age\)/);
    const allowed = await h.cli(['status', '--check', '--job', web.id, '--max-age', '20s', '--allow-errors', '-q']);
    expect(allowed.code).toBe(0);
    expect(allowed.stderr).toBe('');
  });

  it('looks further back when the page of newest backups holds no completed one', async () => {
    const crm = (await h.jobs()).find((j) => j.name === 'crm-db-failing')!;
    for (let i = 0; i < 13; i++) await startAndWait(crm.id, (b) => b.status === 'failed');
    const all = await h.backups(crm.id);
    expect(all.slice(0, 15).every((b) => b.status === 'failed')).toBe(true);
    const completed = all.find((b) => b.status === 'completed')!;

    h.emu.clearRequests();
    const j = (await h.status(['--job', 'crm-db-failing'])).jobs[0]!;
    expect(j.recent).toEqual(Array(10).fill('failed'));
    expect(j.last_completed).toMatchObject({ id: completed.id, status: 'completed' });
    expect(h.sent().filter((r) => r.path === `/v1/jobs/${crm.id}/backups`).map((r) => r.query)).toEqual([
      { sort: '-created_at', page_size: '15' },
      { status: 'completed', sort: '-created_at', page_size: '15' },
    ]);
    const check = await h.cli(['status', '--check', '--job', crm.id]);
    expect(check.stderr).toMatch(/crm-db-failing .*: newest backup failed just now; newest completed backup \d+h\d+m old, max age \S+ from its schedule/);
  });

  it('gives a new job without backups until its max age, and escapes its name in metrics', async () => {
    const name = 'odd "quoted" \\ name';
    const res = await apiFetch(h.emu, '/v1/jobs', {
      method: 'POST',
      json: {
        name,
        recipe_id: 1,
        compute: { type: 'ss_serverless', region: 'US' },
        storage: [{ storage_id: 1, priority: 1 }],
        schedules: [{ order: 1, cron: '30 5 * * 1-5', timezone: 'Asia/Kolkata' }],
      },
    });
    expect(res.status).toBe(201);
    const id = ((await res.json()) as { data: { id: string } }).data.id;
    const j = (await h.status(['--job', id])).jobs[0]!;
    expect(j).toMatchObject({ health: 'unknown', within_max_age: true, newest: null, last_completed: null, recent: [] });
    expect(j.compute).toMatchObject({ type: 'ss_serverless', region: 'US' });
    expect(j.schedules[0]!.words).toBe('at 05:30, Monday through Friday Asia/Kolkata');
    expect(wallClock(j.next_run!, 'Asia/Kolkata')).toEqual([5, 30]);
    expect([1, 2, 3, 4, 5]).toContain(new Date(Date.parse(j.next_run!) + 5.5 * 3600_000).getUTCDay());
    expect((await h.cli(['status', '--check', '--job', id])).code).toBe(0);

    const prom = await h.cli(['status', '-o', 'prometheus', '--job', id]);
    expect(prom.stdout).toContain(`job_name="odd \\"quoted\\" \\\\ name"`);
    const e = parseExposition(prom.stdout);
    expect(sample(e, 'backupctl_job_health', { job_id: id, health: 'unknown' })).toEqual([
      { name: 'backupctl_job_health', labels: { job_id: id, job_name: name, health: 'unknown' }, value: 1 },
    ]);
    expect(sample(e, 'backupctl_job_last_success_timestamp_seconds', { job_id: id })).toEqual([]);
    expect(sample(e, 'backupctl_job_newest_backup_status', { job_id: id }).every((s) => s.value === 0)).toBe(true);
  });
});

describe('status while a backup runs', () => {
  // A long tick keeps a started backup pending for the whole test.
  const h = harness({ tickMs: 600_000 });

  it('marks the backup in progress and judges the job by its newest finished one', async () => {
    const shop = (await h.jobs()).find((j) => j.name === 'shop mysql')!;
    const res = await apiFetch(h.emu, `/v1/jobs/${shop.id}/backups/start`, { method: 'POST', json: { is_manual: true } });
    expect(res.status).toBe(202);
    const j = (await h.status(['--job', shop.id])).jobs[0]!;
    expect(j.recent[0]).toBe('pending');
    expect(j).toMatchObject({ health: 'healthy', newest: { status: 'pending', completed_at: null } });
    const table = await h.cli(['status', '-o', 'table', '--job', shop.id, '--columns', 'name,recent'], { LC_ALL: 'C.UTF-8' });
    expect(table.stdout.split('\n')[2]).toBe('shop mysql  ○✔✔✔✔✔✔✔✔✔');
    expect(table.stdout).toContain('○ pending');
  });
});

describe('status of a team without jobs', () => {
  const h = harness({ seed: 'empty' });

  it('says so, and --check has nothing to pass', async () => {
    const doc = await h.status();
    expect(doc).toMatchObject({ jobs: [], droplets: [], volumes: [], resources: [], summary: { failing: 0, stale: 0, healthy: 0, unknown: 0 } });
    const table = await h.cli(['status', '-o', 'table']);
    expect(table.stdout).toBe('Jobs\nNo jobs.\n');
    const check = await h.cli(['status', '--check']);
    expect(check.code).toBe(9);
    expect(check.stderr).toBe('error: no jobs to check\n');
  });
});
