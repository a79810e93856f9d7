// The rules behind `backupctl status`: when a job is failing, stale, healthy
// or unknown, what --check asks, how --max-age reads, the marks of the strip,
// how the table gives way on a narrow terminal, and metric label escaping.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_AGE_MS,
  judge,
  maxAgeFor,
  parseMaxAges,
  frequencyHours,
  snapshotHealth,
  snapshotSummaryOf,
  type BackupLike,
  type JobStatus,
  type StatusDocument,
} from '../../src/status/document.js';
import { prometheusText } from '../../src/status/prometheus.js';
import { escapeLabelValue } from '../../src/output/prometheus.js';
import { statusView, stripText, unicodeMarks } from '../../src/status/view.js';
import { plainPalette } from '../../src/output/view-table.js';
import { durationText } from '../../src/util/duration.js';
import { parseDuration } from '../../src/util/time.js';

const NOW = Date.parse('2026-06-10T12:00:00Z');
const HOUR = 3_600_000;
const at = (hoursAgo: number) => new Date(NOW - hoursAgo * HOUR).toISOString();
/** A backup created `hoursAgo` and, unless running, finished 10 minutes later. */
const backup = (status: string, hoursAgo: number, id = `${status}-${hoursAgo}`): BackupLike => ({
  id,
  status,
  created_at: at(hoursAgo),
  completed_at: status === 'running' || status === 'pending' ? null : at(hoursAgo - 1 / 6),
});
const base = { maxAgeMs: DEFAULT_MAX_AGE_MS, allowErrors: false, now: NOW, jobCreatedAt: at(24 * 90) };

describe('judging a job', () => {
  it('is healthy when the newest backup completed within the max age', () => {
    const j = judge({ ...base, recent: [backup('completed', 2), backup('completed', 26)] });
    expect(j).toMatchObject({ health: 'healthy', within_max_age: true, recent: ['completed', 'completed'] });
    expect(j.last_completed).toMatchObject({ id: 'completed-2', age_seconds: 2 * 3600 - 600 });
  });

  it('is failing when the newest finished backup failed, even with a fresh success before it', () => {
    const j = judge({ ...base, recent: [backup('failed', 1), backup('completed', 2)] });
    expect(j.health).toBe('failing');
    // --check asks only for a fresh completed backup.
    expect(j.within_max_age).toBe(true);
    expect(j.newest).toMatchObject({ status: 'failed' });
  });

  it('looks past a backup still running to the newest finished one', () => {
    const j = judge({ ...base, recent: [backup('running', 0.1), backup('completed', 20)] });
    expect(j.health).toBe('healthy');
    expect(j.recent[0]).toBe('running');
    expect(j.newest).toMatchObject({ status: 'running', age_seconds: 360 });
  });

  it('counts completed_with_errors as failed unless errors are allowed', () => {
    const recent = [backup('completed_with_errors', 1), backup('completed', 30)];
    const strict = judge({ ...base, recent });
    expect(strict).toMatchObject({ health: 'failing', within_max_age: false });
    expect(strict.last_completed?.status).toBe('completed');
    const lenient = judge({ ...base, recent, allowErrors: true });
    expect(lenient).toMatchObject({ health: 'healthy', within_max_age: true });
    expect(lenient.last_completed?.status).toBe('completed_with_errors');
  });

  it('is stale when the newest completed backup is older than the max age', () => {
    const j = judge({ ...base, recent: [backup('completed', 30)] });
    expect(j).toMatchObject({ health: 'stale', within_max_age: false });
    expect(judge({ ...base, recent: [backup('completed', 30)], maxAgeMs: 48 * HOUR })).toMatchObject({ health: 'healthy', within_max_age: true });
  });

  it('gives a new job until its max age before its first backup, then calls it stale', () => {
    expect(judge({ ...base, recent: [], jobCreatedAt: at(3) })).toMatchObject({ health: 'unknown', within_max_age: true, newest: null, last_completed: null });
    expect(judge({ ...base, recent: [backup('running', 0.5)], jobCreatedAt: at(3) })).toMatchObject({ health: 'unknown', within_max_age: true });
    expect(judge({ ...base, recent: [], jobCreatedAt: at(72) })).toMatchObject({ health: 'stale', within_max_age: false });
    expect(judge({ ...base, recent: [], jobCreatedAt: undefined })).toMatchObject({ health: 'stale', within_max_age: false });
  });

  it('takes the newest success looked up separately when the page holds none', () => {
    const recent = Array.from({ length: 15 }, (_, i) => backup('failed', 1 + i * 24));
    const j = judge({ ...base, recent, lastSuccess: backup('completed', 400) });
    expect(j).toMatchObject({ health: 'failing', within_max_age: false });
    expect(j.last_completed).toMatchObject({ id: 'completed-400' });
    expect(j.recent).toHaveLength(10);
  });

  it('orders by created_at whatever order the service sent', () => {
    const j = judge({ ...base, recent: [backup('completed', 48), backup('failed', 1), backup('completed', 24)] });
    expect(j.recent).toEqual(['failed', 'completed', 'completed']);
    expect(j.health).toBe('failing');
  });

  it('measures the age from completed_at, else created_at, in the service\'s date shapes', () => {
    const j = judge({
      ...base,
      recent: [{ id: 'a', status: 'completed', created_at: '2026-06-10 09:00:00', completed_at: '2026-06-10T10:00:00.000000Z' }],
    });
    expect(j.last_completed?.age_seconds).toBe(2 * 3600);
    const k = judge({ ...base, recent: [{ id: 'b', status: 'completed', created_at: '2026-06-10 09:00:00', completed_at: null }] });
    expect(k.last_completed?.age_seconds).toBe(3 * 3600);
  });
});

describe('--max-age', () => {
  const bad = (value: string, reason: string) => new Error(`${value}: ${reason}`);
  const parse = (values: string[]) => parseMaxAges(values, parseDuration, bad);

  it('defaults to the schedule (26h without one); a bare value sets every job, <job>=value one job by id or name (issue 29)', () => {
    expect(parse([])).toEqual({ fallbackMs: 26 * HOUR, perJob: [] });
    expect(maxAgeFor(parse([]), { id: 'x' })).toEqual({ ms: 26 * HOUR, from: 'default' });
    // A 6-hourly schedule: 6h + 2h (25% is less than 2h); a daily one: 24h + 6h; a weekly one: 7d + 42h.
    expect(maxAgeFor(parse([]), { id: 'x' }, 6 * HOUR)).toEqual({ ms: 8 * HOUR, from: 'schedule' });
    expect(maxAgeFor(parse([]), { id: 'x' }, 24 * HOUR)).toEqual({ ms: 30 * HOUR, from: 'schedule' });
    expect(maxAgeFor(parse([]), { id: 'x' }, 7 * 24 * HOUR)).toEqual({ ms: 210 * HOUR, from: 'schedule' });
    const rules = parse(['48h', 'web=2d', 'a=b=90m', '3f2b=1h']);
    expect(rules.givenMs).toBe(48 * HOUR);
    const ms = (job: { id: string; name: string }) => maxAgeFor(rules, job, 6 * HOUR).ms;
    expect(ms({ id: 'x', name: 'web' })).toBe(48 * HOUR);
    expect(ms({ id: 'x', name: 'a=b' })).toBe(90 * 60_000);
    expect(ms({ id: '3f2b', name: 'db' })).toBe(HOUR);
    expect(ms({ id: 'y', name: 'other' })).toBe(48 * HOUR);
  });

  it('lets a later value for the same job win', () => {
    expect(maxAgeFor(parse(['web=2d', 'web=3d']), { id: 'x', name: 'web' })).toEqual({ ms: 72 * HOUR, from: 'flag' });
  });

  it.each(['26x', 'web=', '=26h', 'web=soon', '0s', ''])('refuses %j', (value) => {
    expect(() => parse([value])).toThrow(value === '' ? /expected a duration/ : /./);
  });
});

describe('durations as text', () => {
  it.each([
    [26 * HOUR, '26h'],
    [48 * HOUR, '2d'],
    [36 * HOUR, '36h'],
    [90 * 60_000, '1h30m'],
    [45_000, '45s'],
  ])('%d ms is %s', (ms, text) => {
    expect(durationText(ms)).toBe(text);
  });
});

describe('the strip of marks', () => {
  it('shows the newest on the left, in the order of -o tsv and --json (issue 25), one shape per status', () => {
    const newestFirst = ['failed', 'running', 'completed_with_errors', 'completed', 'expired', 'pending', 'cancelled'];
    expect(stripText(newestFirst, true)).toBe('✖▶!✔⊘○?');
    expect(stripText(newestFirst, false)).toBe('X>!+~o?');
    // Without colour every status still has its own shape.
    const known = ['completed', 'completed_with_errors', 'failed', 'expired', 'running', 'pending'];
    expect(new Set([...stripText(known, true)]).size).toBe(known.length);
    expect(new Set([...stripText(known, false)]).size).toBe(known.length);
  });

  it('uses ASCII marks when the locale is not UTF-8', () => {
    expect(unicodeMarks({ LANG: 'en_US.UTF-8' })).toBe(true);
    expect(unicodeMarks({ LC_ALL: 'C.utf8', LANG: 'C' })).toBe(true);
    expect(unicodeMarks({ LANG: 'C' })).toBe(false);
    expect(unicodeMarks({ LC_ALL: 'POSIX', LANG: 'en_US.UTF-8' })).toBe(false);
    expect(unicodeMarks({ LANG: 'de_DE.ISO-8859-1' })).toBe(false);
    expect(unicodeMarks({ TERM: 'linux' })).toBe(false);
    expect(unicodeMarks({ TERM: 'xterm-256color' })).toBe(true);
  });
});

function job(overrides: Partial<JobStatus>): JobStatus {
  return {
    id: '3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c',
    name: 'web files',
    compute: { type: 'server', server_id: 1, server_name: 'web-01', host: '203.0.113.10', region: null },
    schedules: [{ id: 1, cron: '0 2 * * *', timezone: 'Europe/Paris', status: 'active', words: 'daily at 02:00 Europe/Paris', next_run: at(-13) }],
    next_run: at(-13),
    newest: { id: 'b1', status: 'failed', created_at: at(10), completed_at: at(9.9), age_seconds: 35640 },
    last_completed: { id: 'b2', status: 'completed', created_at: at(34), completed_at: at(33.9), age_seconds: 122040 },
    recent: ['failed', 'completed', 'completed', 'completed', 'completed', 'completed', 'completed', 'completed', 'completed', 'completed'],
    health: 'failing',
    max_age_seconds: 93600,
    within_max_age: false,
    storage: ['Primary object storage', 'Offsite copy'],
    max_age_from: 'default',
    verify: null,
    restore_test: null,
    anomalies: null,
    warnings: [],
    ...overrides,
  };
}

function doc(jobs: JobStatus[]): StatusDocument {
  const summary = { failing: 0, stale: 0, healthy: 0, unknown: 0 };
  for (const j of jobs) summary[j.health]++;
  return { generated_at: new Date(NOW).toISOString(), allow_errors: false, summary, snapshot_summary: null, jobs, droplets: null, volumes: null, resources: null };
}

describe('the jobs table', () => {
  const view = (width: number, jobs = [job({})]) =>
    statusView(doc(jobs), { palette: plainPalette, unicode: true, width, noHeaders: false, now: new Date(NOW), maxAgeText: '26h' });

  it('shows every column on a wide terminal', () => {
    const text = view(Infinity);
    const [, header, row] = text.split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['Health', 'Name', 'Compute', 'Schedule', 'Newest backup', 'Last success', 'New → old', 'Next run', 'Storage', 'Verify', 'Restore test']);
    expect(row!.split(/\s{2,}/)).toEqual([
      'failing',
      'web files',
      '203.0.113.10',
      'daily at 02:00 Europe/Paris',
      'failed 9 hours ago',
      '1 day ago',
      '✖✔✔✔✔✔✔✔✔✔',
      'in 13 hours',
      'Primary object storage, Offsite copy',
      'never',
      'never',
    ]);
    expect(text).toContain('1 job: 1 failing. Max age 26h.');
  });

  it('leaves out whole columns on a narrow terminal rather than cutting health or the strip', () => {
    const columnsAt = (width: number) => {
      const lines = view(width).split('\n');
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(width);
      expect(lines[2]).toContain('✖✔✔✔✔✔✔✔✔✔');
      expect(lines[2]!.startsWith('failing ')).toBe(true);
      return lines[1]!.split(/\s{2,}/);
    };
    expect(columnsAt(80)).toEqual(['Health', 'Name', 'Newest backup', 'Last success', 'New → old', 'Next run']);
    expect(columnsAt(60)).toEqual(['Health', 'Name', 'Newest backup', 'New → old']);
  });

  it('strips escape sequences and control characters from what the service sent', () => {
    const text = view(Infinity, [job({ name: 'evil\u001b[2Jname\nnext', storage: ['s\u0007'] })]);
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(text).toContain('evilname next');
  });
});

describe('metrics', () => {
  it('escapes label values as the exposition format asks, with control characters stripped as tables and tsv do', () => {
    expect(escapeLabelValue('a "quoted" back\\slash\nline')).toBe('a \\"quoted\\" back\\\\slash line');
    expect(escapeLabelValue('evil\u001b[31mred\u001b[0m\u0007\tname\u009b\r')).toBe('evilred name ');
  });

  it('labels droplets, volumes and resources without control characters', () => {
    const d = doc([job({})]);
    const snap = (status: string, hoursAgo: number) => ({ id: 7, status, started_at: at(hoursAgo), completed_at: status === 'completed' ? at(hoursAgo - 0.1) : null, age_seconds: Math.round((hoursAgo - 0.1) * 3600) });
    const seen = { newest: snap('completed', 3), last_completed: snap('completed', 3) };
    d.droplets = [{ id: 42, name: 'web\u001b]0;owned\u0007-01\nx', status: 'active', frequency_hours: 24, timezone: 'UTC', ...seen, ...snapshotHealth(seen, 24) }];
    const text = prometheusText(d);
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(text).toMatch(/^backupctl_snapshot_health\{kind="droplet",id="42",name="web-01 x",health="healthy"\} 1$/m);
  });

  it('writes a HELP and a TYPE line before each family, and one sample per job', () => {
    const text = prometheusText(doc([job({ name: 'say "hi"' }), job({ id: 'other', name: null, last_completed: null, newest: null, recent: [], health: 'stale' })]));
    const families = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => m[1]);
    for (const f of families) expect(text).toContain(`# HELP ${f} `);
    expect(text).toContain('backupctl_job_last_success_timestamp_seconds{job_id="3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c",job_name="say \\"hi\\""}');
    // A job without a success has no sample rather than a made-up zero.
    expect(text).not.toMatch(/backupctl_job_last_success_timestamp_seconds\{job_id="other"/);
    expect(text).toMatch(/^backupctl_job_health\{job_id="other",job_name="",health="stale"\} 1$/m);
    expect(text).toMatch(/^backupctl_job_backups\{job_id="other",job_name="",status="failed"\} 0$/m);
    expect(text.endsWith('\n')).toBe(true);
  });
});

describe('the health of a droplet, volume or snapshot resource', () => {
  const snap = (status: string, ageHours: number) => ({ id: 1, status, started_at: at(ageHours + 0.1), completed_at: at(ageHours), age_seconds: ageHours * 3600 });
  const health = (s: Parameters<typeof snapshotHealth>[0], hours: number | undefined) => snapshotHealth(s, hours).health;
  it('is failing when the newest snapshot failed or expired, whatever came before', () => {
    expect(health({ newest: snap('failed', 1), last_completed: snap('completed', 2) }, 24)).toBe('failing');
    expect(health({ newest: snap('expired', 1), last_completed: snap('completed', 2) }, 24)).toBe('failing');
  });
  it('is stale when the newest completed snapshot is older than the frequency plus 25%, at least 2h (26h when unknown; issue 29)', () => {
    expect(health({ newest: snap('completed', 29.9), last_completed: snap('completed', 29.9) }, 24)).toBe('healthy');
    expect(health({ newest: snap('completed', 30.1), last_completed: snap('completed', 30.1) }, 24)).toBe('stale');
    expect(health({ newest: snap('in-progress', 0.5), last_completed: snap('completed', 8.5) }, 6)).toBe('stale');
    expect(health({ newest: snap('transferring', 0.5), last_completed: snap('completed', 7.5) }, 6)).toBe('healthy');
    expect(health({ newest: snap('completed', 25), last_completed: snap('completed', 25) }, undefined)).toBe('healthy');
    expect(health({ newest: snap('completed', 27), last_completed: snap('completed', 27) }, undefined)).toBe('stale');
    expect(snapshotHealth({ newest: snap('completed', 1), last_completed: snap('completed', 1) }, 24)).toEqual({ health: 'healthy', max_age_seconds: 30 * 3600, within_max_age: true });
  });
  it('is unknown without a completed snapshot yet', () => {
    expect(health({ newest: null, last_completed: null }, 24)).toBe('unknown');
    expect(health({ newest: snap('in-progress', 0.2), last_completed: null }, 24)).toBe('unknown');
  });
  it('reads the frequency as the service sends it', () => {
    expect([24, '24', 'h24', 'H6', 0, 'daily', null, undefined].map(frequencyHours)).toEqual([24, 24, 24, 6, undefined, undefined, undefined, undefined]);
  });
});

describe('issue 18, finding 10: a backup dated in the future', () => {
  const future = (status: string, hoursAhead: number): BackupLike => ({
    id: `${status}+${hoursAhead}`,
    status,
    created_at: at(-hoursAhead),
    completed_at: at(-hoursAhead),
  });

  it('a backup dated 2099 is not fresh: no age, stale, --check fails', () => {
    const in2099: BackupLike = { id: 'b2099', status: 'completed', created_at: '2099-01-01T00:00:00Z', completed_at: '2099-01-01T00:10:00Z' };
    const j = judge({ ...base, recent: [in2099] });
    expect(j.last_completed).toBeNull();
    expect(j.newest?.age_seconds).toBeNull();
    expect(j).toMatchObject({ health: 'stale', within_max_age: false });
    // It does not hide an older success within the max age either (it would sort first until 2099).
    expect(judge({ ...base, recent: [in2099, backup('completed', 3)] })).toMatchObject({ health: 'healthy', within_max_age: true });
  });

  it('a job created in the future is not a "new job" that passes --check', () => {
    expect(judge({ ...base, recent: [], jobCreatedAt: '2099-01-01T00:00:00Z' })).toMatchObject({ health: 'stale', within_max_age: false });
  });

  it('a few minutes ahead (clock skew) is age 0, as before', () => {
    const j = judge({ ...base, recent: [future('completed', 0.05)] });
    expect(j.last_completed?.age_seconds).toBe(0);
    expect(j.health).toBe('healthy');
  });

  it('snapshots likewise', () => {
    const in2099 = snapshotSummaryOf({ id: 1, status: 'completed', started_at: '2099-01-01T00:00:00Z', completed_at: '2099-01-01T00:05:00Z' }, NOW);
    expect(in2099.age_seconds).toBeNull();
    const s = snapshotHealth({ newest: in2099, last_completed: in2099 }, 24);
    expect(s.health).toBe('stale');
  });
});
