// Right against the published service (issue 30): each finding through the built CLI against
// `emulator --dialect published` (the service as its public API reference pages show it), and the
// lists of issue 29 that were silently partial. Every test here failed on the code before the change:
// the published names were refused (exit 2) and the droplet path was /v1/cloud_i (404); the example
// schedule was read as hourly; a size in 1000s failed the download (exit 6); a bare --file matched
// no storage path; a key without an id was created in silence; a service ignoring `page` was read
// until the page cap; `servers list -q` printed one page with nothing on stderr.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { withEmulatorCli } from '../helpers/emulator.js';
import { hostileService } from '../helpers/servers.js';
import { runCli } from '../helpers/cli.js';

// A fixed instant: the demo history is laid back from it, so nothing depends on the hour.
const NOW = Date.parse('2026-03-10T12:00:00Z');

describe('against the published dialect, with provider_names published', () => {
  const { emu, env: baseEnv, cli: rawCli, sent } = withEmulatorCli({ dialect: 'published', now: NOW });
  const run = (args: string[]) => runCli(args, { env: { ...baseEnv(), BACKUPCTL_PROVIDER_NAMES: 'published' } });

  it('finding 1: storage add takes the published name in any case and sends it; tables show it', async () => {
    emu.clearRequests();
    const r = await run(['storage', 'add', '--name', 'eu', '--provider', 'AWS', '--region', 'eu-central-1', '--bucket', 'b', '--key', 'k', '--secret', 's', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const post = sent().find((q) => q.method === 'POST' && q.path === '/v1/storage');
    expect((post?.body as { provider?: string }).provider).toBe('aws');
    expect(JSON.parse(r.stdout).provider).toBe('aws');
    const table = await run(['storage', 'list', '-o', 'table']);
    expect(table.stdout).toMatch(/\baws\b/);
    expect(table.stdout).not.toContain('cloud_a');
  });

  it('finding 1: the token is accepted too and sent as the published name', async () => {
    emu.clearRequests();
    const r = await run(['storage', 'list', '--provider', 'cloud_a', '-q']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent().at(-1)?.query.provider).toBe('aws');
  });

  it('finding 1: droplets are read at /v1/digitalocean, and status reads them', async () => {
    emu.clearRequests();
    const r = await run(['droplets', 'list', '-q']);
    expect(r.code, r.stderr).toBe(0);
    // Ids, one a line: a count of split('\n') could not fail (an empty stdout is one line).
    expect(r.stdout).toMatch(/^(\S+\n)+$/);
    expect(sent().every((q) => !q.path.startsWith('/v1/cloud_i'))).toBe(true);
    expect(sent().some((q) => q.path === '/v1/digitalocean/droplets')).toBe(true);
    const status = await run(['status', '--json']);
    expect(status.stderr).not.toContain('could not read droplets');
    expect(JSON.parse(status.stdout).droplets.length).toBeGreaterThan(0);
  });

  it('finding 1: doctor says the service answers to the published names', async () => {
    const r = await run(['doctor', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ answers_to: 'published', neutral_status: 404, published_status: 200, setting_ok: true });
    const neutral = await rawCli(['doctor', '--json']);
    expect(JSON.parse(neutral.stdout).setting_ok).toBe(false);
    expect(neutral.stderr).toContain('config set provider_names published');
  });

  it('finding 2: the published example schedule (cron "0 * * * *", frequency 24) expects one run a day', async () => {
    const job = JSON.parse((await run(['jobs', 'get', 'shop mysql', '--json'])).stdout);
    expect(job.schedule[0]).toMatchObject({ cron: '0 * * * *', frequency: 24, frequency_mode: 'hour' });
    const report = await run(['report', '--job', 'shop mysql', '--since', '2026-03-07T06:00:00Z', '--until', '2026-03-09T06:00:00Z', '--json']);
    expect(report.code, report.stderr).toBe(0);
    const entry = JSON.parse(report.stdout).jobs[0];
    expect(entry.expected).toBe(2);
    expect(entry.missed).toBe(0);
    expect(entry.notes.join(' ')).toContain('the frequency wins');
    const status = JSON.parse((await run(['status', '--job', 'shop mysql', '--json'])).stdout);
    // The next run from the CLI's (real) clock: within a day, not within the hour as the cron would say.
    const next = Date.parse(status.jobs[0].next_run);
    expect(next - Date.now()).toBeGreaterThan(0);
    expect(next - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
    expect(new Date(next).getUTCMinutes()).toBe(0);
  });

  it('finding 2: jobs create --frequency h6 --run-offset 3 sends the published schedule item', async () => {
    emu.clearRequests();
    const r = await run(['jobs', 'create', '--name', 'six-hourly', '--recipe-id', '1', '--serverless', 'EU', '--config', 'database=shop', '--storage', '1', '--frequency', 'h6', '--run-offset', '3', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const post = sent().find((q) => q.method === 'POST' && q.path === '/v1/jobs');
    expect((post?.body as { schedules: unknown[] }).schedules[0]).toEqual({ order: 0, frequency: 'h6', run_offset: 3, timezone: 'UTC' });
    const made = JSON.parse(r.stdout);
    expect(made.schedule[0]).toMatchObject({ frequency: 6, run_offset: 3, schedule_order: 0 });
  });

  it('finding 3 and 4: a download of a record stating sizes in 1000s is written; files pair by base name', async () => {
    const backup = JSON.parse((await run(['jobs', 'backup', 'list', 'web-01 files', '--status', 'completed', '--json'])).stdout)[0];
    const names: string[] = backup.files.map((f: { name: string }) => f.name);
    expect(names.every((n) => n.includes('/'))).toBe(true);
    // Sizes in 1000s that the 1024 reading would refuse.
    expect(backup.files.some((f: { size: string }) => /KB|MB/.test(f.size))).toBe(true);
    const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-published-'));
    try {
      const r = await run(['jobs', 'backup', 'download', 'web-01 files', backup.id, '--dir', dir, '--debug']);
      expect(r.code, r.stderr).toBe(0);
      expect(readdirSync(dir).sort()).toEqual(names.map((n) => path.basename(n)).sort());
      expect(r.stderr).toContain('read in 1000s');
      // Remembered for the profile once a file showed it.
      expect(r.stderr).toContain('the service states sizes in 1000s; remembered');
      expect(JSON.parse((await run(['doctor', '--json'])).stdout).size_unit).toBe(1000);
      // --file by the last path segment, streamed to stdout.
      const base = path.basename(names.find((n) => n.endsWith('.tar.gz'))!);
      const one = await run(['jobs', 'backup', 'download', 'web-01 files', backup.id, '--file', base, '--output', '-']);
      expect(one.code, one.stderr).toBe(0);
      expect(Buffer.byteLength(one.stdout, 'latin1')).toBeGreaterThan(0);
      expect(readFileSync(path.join(dir, base)).length).toBeGreaterThan(1000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const verify = await run(['verify', 'web-01 files', backup.id]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  });

  it('finding 5: a new encryption key without an id is said so plainly; -q prints nothing', async () => {
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 4096, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
    const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-key-'));
    try {
      const file = path.join(dir, 'k.pub');
      (await import('node:fs')).writeFileSync(file, publicKey);
      const r = await run(['encryption-keys', 'create', '--name', 'prod', '--public-key-file', file, '-q']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('returned no id');
      const set = await run(['jobs', 'encryption-key', 'set', 'shop mysql', 'prod']);
      expect(set.code).toBe(2);
      expect(set.stderr).toContain('web dashboard');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finding 6: links {} and meta {} are paged by full pages: every backup is listed', async () => {
    const all = await run(['jobs', 'backup', 'list', 'api postgres', '--all', '-q']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout.trim().split('\n').length).toBeGreaterThan(15);
  });

  it('finding 7: storage list takes an account provider; accounts show the published display name', async () => {
    const r = await run(['storage', 'list', '--provider', 'Hetzner', '-q']);
    expect(r.code, r.stderr).toBe(0);
    const accounts = await run(['accounts', 'list', '-o', 'table']);
    expect(accounts.stdout).toContain('AWS');
    expect(accounts.stdout).not.toMatch(/Cloud [A-H]\b/);
    const est = await run(['storage', 'list', '-o', 'table']);
    // Read as bytes and shown in the one unit system (issue 42.13).
    expect(est.stdout).toMatch(/\b31\.5 GiB\b/);
  });

  it('finding 7: resources activate takes a frequency beyond the job schedules\' values', async () => {
    emu.clearRequests();
    const r = await run(['resources', 'activate', '3', '--frequency', 'h8', '--retention-hourly', '0', '--retention-daily', '7', '--retention-weekly', '4', '--retention-monthly', '3', '--timezone', 'UTC', '--run-offset', '2', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('"frequency":"h8"');
  });
});

describe('paging that cannot loop, and lists never silently partial', () => {
  const svc = hostileService();
  const page = (ids: number[], body: Record<string, unknown> = { links: {}, meta: {} }) => JSON.stringify({ data: ids.map((id) => ({ id, name: `s${id}` })), ...body });

  it('a service that ignores page (links {}, meta {}) stops the walk with exit 6', async () => {
    const first = Array.from({ length: 15 }, (_, i) => i + 1);
    svc.handle = (_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(page(first));
    };
    const r = await svc.cli(['servers', 'list', '-q'], { BACKUPCTL_MAX_PAGES: '50' });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('page 2 repeats the records of page 1');
    expect(svc.received.length).toBe(2);
  });

  it('a configuration list is read whole by default; one page asked for says it is cut, in a pipe too', async () => {
    svc.handle = (req, res) => {
      res.setHeader('content-type', 'application/json');
      const n = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? '1');
      const ids = n === 1 ? Array.from({ length: 15 }, (_, i) => i + 1) : [16, 17, 18, 19, 20, 21, 22];
      res.end(page(ids, { links: { next: n === 1 ? '/v1/servers?page=2' : null }, meta: { current_page: n, last_page: 2, total: 22 } }));
    };
    const whole = await svc.cli(['servers', 'list', '-q']);
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stdout.trim().split('\n')).toHaveLength(22);
    const one = await svc.cli(['servers', 'list', '--page', '1', '-q']);
    expect(one.stdout.trim().split('\n')).toHaveLength(15);
    expect(one.stderr).toContain('Showing 15 of 22');
  });
});

describe('a backups file takes the published provider names (issue 30 §1)', () => {
  const { env } = withEmulatorCli({ now: NOW });
  const cli = (args: string[]) => runCli(args, { env: env() });

  it('"AWS" for cloud_a plans no change (it was refused with exit 2 before)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-file-'));
    try {
      const file = path.join(dir, 'backups.yaml');
      const exported = await cli(['export', '-f', file]);
      expect(exported.code, exported.stderr).toBe(0);
      const text = readFileSync(file, 'utf8');
      expect(text).toContain('provider: cloud_a');
      (await import('node:fs')).writeFileSync(file, text.replaceAll('provider: cloud_a', 'provider: AWS').replaceAll('provider: cloud_j', 'provider: Wasabi'), { mode: 0o600 });
      const plan = await cli(['plan', '-f', file]);
      expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
