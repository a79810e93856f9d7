// jobs list/get/create/update/delete as a user meets them: the built CLI
// against one emulator, asserting the request that went out (method, path,
// query, body field names and JSON types), the bytes on stdout and the exit code.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiFetch, withEmulatorCli } from '../helpers/emulator.js';

interface Job {
  id: string;
  name: string;
  recipe: string;
  compute: { type: string; server_id?: number; region?: string; server?: { name: string; host: string } };
  schedule: Array<{ id: number; cron: string; timezone: string; schedule_name: string }>;
  storage: Array<{ id: number; name: string }>;
  last_ran_at: string | null;
  last_backups: Array<{ id: string }>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let dir: string;
const { emu, cli, sent } = withEmulatorCli();

async function serviceJob(id: string): Promise<{ status: number; job?: Job }> {
  const res = await apiFetch(emu, `/v1/jobs/${id}`);
  return { status: res.status, job: res.status === 200 ? ((await res.json()) as { data: Job }).data : undefined };
}
async function serviceJobs(query = ''): Promise<Job[]> {
  const res = await apiFetch(emu, `/v1/jobs?page_size=100${query}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Job[] }).data;
}
/** A job of its own for a test that changes or removes one. */
async function newJob(body: Record<string, unknown> = {}): Promise<Job> {
  const res = await apiFetch(emu, '/v1/jobs', {
    method: 'POST',
    json: {
      name: 'probe',
      recipe_id: 1,
      compute: { type: 'server', server_id: 1 },
      storage: [{ storage_id: 1, priority: 1 }],
      schedules: [{ order: 1, cron: '0 2 * * *', timezone: 'UTC' }],
      ...body,
    },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: Job }).data;
}
function jsonFile(name: string, value: unknown): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(value));
  return file;
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'backupctl-jobs-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => emu.clearRequests());

describe('jobs list', () => {
  it('sends --host, --modified-since (as ISO UTC), --sort and --page-size in the query', async () => {
    const r = await cli(['jobs', 'list', '--host', '203.0.113.10', '--modified-since', '2020-01-01T02:00:00+02:00', '--sort', '-name', '--page-size', '20', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'GET', path: '/v1/jobs' });
    expect(sent()[0]!.query).toEqual({ host: '203.0.113.10', modified_since: '2020-01-01T00:00:00.000Z', sort: '-name', page_size: '20' });
    const listed = JSON.parse(r.stdout) as Job[];
    expect(listed.length).toBeGreaterThan(0);
    for (const j of listed) expect(j.compute.server?.host).toBe('203.0.113.10');
    expect(listed.map((j) => j.name)).toEqual([...listed.map((j) => j.name)].sort().reverse());
  });

  it('an age for --modified-since is sent as an ISO datetime', async () => {
    const r = await cli(['jobs', 'list', '--modified-since', '7d', '-q']);
    expect(r.code, r.stderr).toBe(0);
    const since = Date.parse(String(sent()[0]!.query.modified_since));
    expect(String(sent()[0]!.query.modified_since)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Math.abs(Date.now() - 7 * 86_400_000 - since)).toBeLessThan(3_600_000);
  });

  it('tsv: id, name, recipe, compute, first cron (+ others), storage names, last ran', async () => {
    const job = await newJob({
      name: 'tsv probe',
      storage: [{ storage_id: 1, priority: 1 }, { storage_id: 2, priority: 2 }],
      schedules: [
        { order: 1, cron: '0 2 * * *', timezone: 'UTC' },
        { order: 2, cron: '0 14 * * 0', timezone: 'UTC' },
      ],
    });
    const r = await cli(['jobs', 'list', '--all', '-o', 'tsv']);
    expect(r.code, r.stderr).toBe(0);
    const line = r.stdout.split('\n').find((l) => l.startsWith(`${job.id}\t`));
    expect(line).toBe(
      `${job.id}\ttsv probe\t${job.recipe}\tserver ${job.compute.server!.name}\t0 2 * * * (+1)\t${job.storage.map((s) => s.name).join(', ')}\t`,
    );
    const all = await serviceJobs();
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(all.length);
    // serverless and agent computes read as the issue asks
    for (const j of all) {
      const fields = r.stdout.split('\n').find((l) => l.startsWith(`${j.id}\t`))!.split('\t');
      expect(fields).toHaveLength(7);
      if (j.compute.type === 'ss_serverless') expect(fields[3]).toBe(`serverless ${j.compute.region}`);
      if (j.compute.type === 'ss_agent') expect(fields[3]).toBe('agent');
    }
  });

  it('-q prints one id per line; a bad --sort field exits 2 and sends nothing', async () => {
    const q = await cli(['jobs', 'list', '--all', '-q']);
    expect(q.code).toBe(0);
    expect(q.stdout).toBe((await serviceJobs()).map((j) => `${j.id}\n`).join(''));
    emu.clearRequests();
    const bad = await cli(['jobs', 'list', '--sort', 'recipe']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--sort');
    expect(sent()).toHaveLength(0);
  });
});

describe('jobs get', () => {
  it('--json prints exactly data', async () => {
    const [first] = await serviceJobs();
    const r = await cli(['jobs', 'get', first!.id, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()[0]).toMatchObject({ method: 'GET', path: `/v1/jobs/${first!.id}`, query: {} });
    expect(JSON.parse(r.stdout)).toEqual((await serviceJob(first!.id)).job);
  });

  it('Last backups are newest first, in the table and the JSON, so --jq .last_backups[0] is the newest (issue 25)', async () => {
    const shop = (await serviceJobs()).find((j) => j.name === 'shop mysql')!;
    const r = await cli(['jobs', 'get', shop.id, '--json']);
    const times = (JSON.parse(r.stdout) as { last_backups: Array<{ created_at: string }> }).last_backups.map((b) => b.created_at);
    expect(times.length).toBeGreaterThan(2);
    expect(times).toEqual([...times].sort().reverse());
    const first = await cli(['jobs', 'get', shop.id, '--jq', '.last_backups[0].created_at']);
    expect(first.stdout).toBe(`${times[0]}\n`);
    const table = (await cli(['jobs', 'get', shop.id, '-o', 'table'])).stdout;
    const rows = table.slice(table.indexOf('\nLast backups\n')).split('\n').filter((l) => UUID.test(l.split(/\s+/)[0] ?? ''));
    const ids = (JSON.parse(r.stdout) as { last_backups: Array<{ id: string }> }).last_backups.map((b) => b.id);
    expect(rows.map((l) => l.split(/\s+/)[0])).toEqual(ids);
  });

  it('table: the job, then Schedules, Storage and Last backups sections', async () => {
    const job = (await serviceJobs()).find((j) => j.last_backups.length > 0 && j.compute.type === 'server')!;
    const r = await cli(['jobs', 'get', job.id, '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout;
    expect(out).toMatch(new RegExp(`^ID:\\s+${job.id}$`, 'm'));
    expect(out).toMatch(new RegExp(`^Compute:\\s+server ${job.compute.server!.name}$`, 'm'));
    const at = (title: string) => out.indexOf(`\n${title}\n`);
    expect(at('Schedules')).toBeGreaterThan(0);
    expect(at('Storage')).toBeGreaterThan(at('Schedules'));
    expect(at('Last backups')).toBeGreaterThan(at('Storage'));
    const schedules = out.slice(at('Schedules'), at('Storage'));
    expect(schedules).toMatch(/Name\s+Schedule\s+Time zone\s+Retention\s+Status/);
    for (const s of job.schedule) expect(schedules).toContain(s.cron);
    expect(schedules).toContain(job.schedule[0]!.timezone);
    const storage = out.slice(at('Storage'), at('Last backups'));
    expect(storage).toMatch(/ID\s+Name\s+Provider\s+Region\s+Bucket/);
    for (const s of job.storage) expect(storage).toContain(s.name);
    const backups = out.slice(at('Last backups'));
    expect(backups).toMatch(/ID\s+Status\s+Tags\s+Created\s+Completed/);
    for (const b of job.last_backups) expect(backups).toContain(b.id);
  });

  it('a value that is not a UUID is a name: looked up, exit 5 when no job has it; an unknown id exits 5', async () => {
    const bad = await cli(['jobs', 'get', '42']);
    expect(bad.code).toBe(5);
    expect(bad.stderr).toBe('error: no job with the id or name "42"\n  See backupctl jobs list.\n');
    expect(sent().map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/jobs']);
    const missing = await cli(['jobs', 'get', '00000000-0000-4000-8000-000000000000']);
    expect(missing.code).toBe(5);
    expect(missing.stdout).toBe('');
  });
});

describe('jobs create', () => {
  it('from flags: compute, config, storage with positions, one schedule, key and proxy, with their JSON types', async () => {
    const r = await cli([
      'jobs', 'create', '--name', 'site', '--recipe-id', '1', '--server', '1',
      '--config', 'root_path=/var/www', '--config', 'compression_level=6',
      '--storage', '2', '--storage', '1:5', '--cron', '0 2 * * *', '--timezone', 'Europe/Paris',
      '--retention-hourly', '0', '--retention-daily', '7', '--retention-weekly', '4', '--retention-monthly', '3',
      '--encryption-key', '1', '--proxy', '2', '-q',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^[0-9a-f-]{36}\n$/);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'POST', path: '/v1/jobs' });
    // toEqual is strict on JSON types: 1 is not '1'
    expect(sent()[0]!.body).toEqual({
      name: 'site',
      recipe_id: 1,
      compute: { type: 'server', server_id: 1 },
      config: { root_path: '/var/www', compression_level: 6 },
      storage: [{ storage_id: 2, priority: 1 }, { storage_id: 1, priority: 5 }],
      schedules: [{ order: 1, cron: '0 2 * * *', timezone: 'Europe/Paris', retention_hourly: 0, retention_daily: 7, retention_weekly: 4, retention_monthly: 3 }],
      encryption_key_id: '1',
      proxy_id: 2,
    });
    const { job } = await serviceJob(r.stdout.trim());
    expect(job).toMatchObject({ name: 'site', compute: { type: 'server', server_id: 1 } });
  });

  it('--serverless sends the region, --agent the type alone; --timezone defaults to UTC; --json prints the record', async () => {
    const eu = await cli(['jobs', 'create', '--name', 'eu', '--recipe-id', '1', '--serverless', 'EU', '--storage', '3', '--cron', '15 3 * * *', '--json']);
    expect(eu.code, eu.stderr).toBe(0);
    expect(sent()[0]!.body).toEqual({
      name: 'eu',
      recipe_id: 1,
      compute: { type: 'ss_serverless', region: 'EU' },
      storage: [{ storage_id: 3, priority: 1 }],
      schedules: [{ order: 1, cron: '15 3 * * *', timezone: 'UTC' }],
    });
    const record = JSON.parse(eu.stdout) as Job;
    expect(record).toMatchObject({ name: 'eu', compute: { type: 'ss_serverless', region: 'EU' } });
    expect(record.id).toMatch(UUID);

    const agent = await cli(['jobs', 'create', '--name', 'ag', '--recipe-id', '1', '--agent', '--storage', '1', '--cron', '0 4 * * *', '-o', 'table']);
    expect(agent.code, agent.stderr).toBe(0);
    expect(sent()[1]!.body).toMatchObject({ compute: { type: 'ss_agent' } });
    expect(agent.stdout).toMatch(/^Compute:\s+agent$/m);
    expect(agent.stdout).toMatch(/^Name:\s+ag$/m);
  });

  it('from --file, the flags beside it overriding its fields', async () => {
    const file = jsonFile('job.json', {
      name: 'from-file',
      recipe_id: 1,
      compute: { type: 'ss_agent' },
      config: { root_path: '/srv' },
      storage: [{ storage_id: 1, priority: 1 }],
      schedules: [{ order: 1, cron: '0 3 * * *', timezone: 'UTC', retention_daily: 3 }],
    });
    const r = await cli(['jobs', 'create', '--file', file, '--name', 'override', '--server', '2', '--storage', '4:2', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()[0]!.body).toEqual({
      name: 'override',
      recipe_id: 1,
      compute: { type: 'server', server_id: 2 },
      config: { root_path: '/srv' },
      storage: [{ storage_id: 4, priority: 2 }],
      schedules: [{ order: 1, cron: '0 3 * * *', timezone: 'UTC', retention_daily: 3 }],
    });
    expect(JSON.parse(r.stdout)).toMatchObject({ name: 'override', compute: { type: 'server', server_id: 2 } });
  });

  it('--file - reads the body from standard input; --cron replaces its schedules', async () => {
    const body = { name: 'stdin', recipe_id: 1, compute: { type: 'ss_agent' }, storage: [{ storage_id: 1, priority: 1 }], schedules: [{ order: 1, cron: '0 1 * * *', timezone: 'UTC' }] };
    const r = await cli(['jobs', 'create', '--file', '-', '--cron', '30 5 * * 1', '--timezone', 'Europe/Berlin', '-q'], JSON.stringify(body));
    expect(r.code, r.stderr).toBe(0);
    expect(sent()[0]!.body).toEqual({ ...body, schedules: [{ order: 1, cron: '30 5 * * 1', timezone: 'Europe/Berlin' }] });
  });

  it('bad input exits 2 naming the flag, and sends nothing', async () => {
    const base = ['--name', 'x', '--recipe-id', '1', '--storage', '1', '--cron', '0 2 * * *'];
    const noCompute = jsonFile('no-compute.json', { name: 'x', recipe_id: 1, storage: [{ storage_id: 1, priority: 1 }], schedules: [{ order: 1, cron: '0 2 * * *', timezone: 'UTC' }] });
    const cases: Array<[string[], RegExp]> = [
      [[...base, '--server', '1', '--agent'], /--server, --serverless or --agent/],
      [[...base, '--serverless', 'EU', '--server', '1'], /--server, --serverless or --agent/],
      [base, /missing --server, --serverless or --agent/],
      [['--file', noCompute], /missing --server, --serverless or --agent/],
      [['--recipe-id', '1', '--agent', '--storage', '1', '--cron', '0 2 * * *'], /missing --name/],
      [['--name', 'x', '--agent', '--storage', '1', '--cron', '0 2 * * *'], /missing --recipe-id/],
      [['--name', 'x', '--recipe-id', '1', '--agent', '--cron', '0 2 * * *'], /missing --storage/],
      [['--name', 'x', '--recipe-id', '1', '--agent', '--storage', '1'], /missing --cron/],
      [['--name', 'x', '--recipe-id', '1', '--agent', '--storage', '1', '--cron', '0 2 * *'], /--cron: must be 5 fields/],
      [['--name', 'x', '--recipe-id', '1', '--agent', '--storage', '1', '--cron', '0 2 * * * *'], /--cron: must be 5 fields/],
      [['--name', 'x', '--recipe-id', '1', '--agent', '--storage', '1', '--timezone', 'UTC'], /--cron/],
      [[...base, '--serverless', 'ASIA'], /--serverless/],
      [[...base, '--agent', '--recipe-id', 'files'], /--recipe-id/],
      [[...base, '--server', '0'], /--server/],
      [[...base, '--agent', '--storage', '1:x'], /--storage/],
      [[...base, '--agent', '--proxy', 'eu'], /--proxy/],
      [[...base, '--agent', '--config', 'root_path'], /--config/],
      [['--file', path.join(dir, 'absent.json')], /--file/],
    ];
    for (const [args, message] of cases) {
      const r = await cli(['jobs', 'create', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect(r.stdout).toBe('');
    }
    expect(sent()).toHaveLength(0);
  });

  it('--dry-run prints the assembled request, the config password masked, and sends nothing', async () => {
    const r = await cli([
      'jobs', 'create', '--name', 'dry', '--recipe-id', '2', '--agent', '--storage', '1', '--cron', '0 2 * * *',
      '--config', 'mysql_password=DryRunSecret7f3a', '--config', 'mysql_host=db.internal', '--dry-run',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`-X POST '${emu.url}/v1/jobs'`);
    expect(r.stdout).toContain('"compute":{"type":"ss_agent"}');
    expect(r.stdout).toContain('"schedules":[{"order":1,"cron":"0 2 * * *","timezone":"UTC"}]');
    // the config password the body carries is masked, the rest of the config shown
    expect(r.stdout).toContain('"config":{"mysql_password":"****","mysql_host":"db.internal"}');
    expect(r.stdout + r.stderr).not.toContain('DryRunSecret7f3a');
    expect(r.stdout).not.toContain(emu.token);
    expect(sent()).toHaveLength(0);
  });
});

describe('jobs update', () => {
  it('--storage sends storage items with integer ids and priorities; 204 confirms on stderr', async () => {
    const job = await newJob();
    emu.clearRequests();
    const r = await cli(['jobs', 'update', job.id, '--storage', '2:1', '--storage', '5']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'PATCH', path: `/v1/jobs/${job.id}` });
    expect(sent()[0]!.body).toEqual({ storage: [{ storage_id: 2, priority: 1 }, { storage_id: 5, priority: 2 }] });
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`Updated job ${job.id}.\n`);
    expect((await serviceJob(job.id)).job!.storage.map((s) => s.id)).toEqual([2, 5]);
  });

  it('--file sends schedules, --storage beside it overrides; -q prints the job id', async () => {
    const job = await newJob();
    emu.clearRequests();
    const file = jsonFile('update.json', { schedules: [{ cron: '45 1 * * *', timezone: 'Europe/Paris' }], storage: [{ storage_id: 1, priority: 1 }] });
    const r = await cli(['jobs', 'update', job.id, '--file', file, '--storage', '3', '-q']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()[0]!.body).toEqual({ schedules: [{ cron: '45 1 * * *', timezone: 'Europe/Paris' }], storage: [{ storage_id: 3, priority: 1 }] });
    expect(r.stdout).toBe(`${job.id}\n`);
    expect((await serviceJob(job.id)).job!.schedule.map((s) => s.cron)).toEqual(['45 1 * * *']);
  });

  it('nothing to change exits 2 and sends nothing', async () => {
    const job = await newJob();
    emu.clearRequests();
    const r = await cli(['jobs', 'update', job.id]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--storage');
    const unrelated = await cli(['jobs', 'update', job.id, '--file', jsonFile('other.json', { name: 'x' })]);
    expect(unrelated.code).toBe(2);
    expect(sent()).toHaveLength(0);
  });
});

describe('jobs delete', () => {
  it('without --yes and without a terminal: exit 2, nothing sent', async () => {
    const job = await newJob();
    emu.clearRequests();
    const r = await cli(['jobs', 'delete', job.id]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--yes');
    expect(sent()).toHaveLength(0);
    expect((await serviceJob(job.id)).status).toBe(200);
  });

  it('--yes deletes: DELETE, confirmation on stderr, nothing on stdout; -q prints the id', async () => {
    const job = await newJob();
    emu.clearRequests();
    const r = await cli(['jobs', 'delete', job.id, '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'DELETE', path: `/v1/jobs/${job.id}`, body: undefined });
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`Deleted job ${job.id}.\n`);
    expect((await serviceJob(job.id)).status).toBe(404);

    const other = await newJob();
    const q = await cli(['jobs', 'delete', other.id, '--yes', '-q']);
    expect(q.code).toBe(0);
    expect(q.stdout).toBe(`${other.id}\n`);
    const again = await cli(['jobs', 'delete', other.id, '--yes']);
    expect(again.code).toBe(5);
  });
});
