// What hangs on a job: starting, listing and deleting its backups, its
// encryption key, proxy, schedules and storage. The built CLI against one
// emulator: the exact request (with JSON types), stdout bytes, exit codes.
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiFetch, withEmulatorCli } from '../helpers/emulator.js';

interface Job {
  id: string;
  name: string;
  schedule: Array<{ id: number; cron: string; timezone: string; run_offset: number; retention: Record<string, number> }>;
  storage: Array<{ id: number }>;
}
interface Backup {
  id: string;
  status: string;
  tags: Record<string, boolean | number>;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  files: unknown[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const { emu, cli, sent } = withEmulatorCli();

async function serviceJob(id: string): Promise<Job> {
  const res = await apiFetch(emu, `/v1/jobs/${id}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Job }).data;
}
async function serviceBackups(jobId: string, query = ''): Promise<Backup[]> {
  const res = await apiFetch(emu, `/v1/jobs/${jobId}/backups?page_size=100${query}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Backup[] }).data;
}
/** A job of its own for each test that changes one. */
async function newJob(): Promise<Job> {
  const res = await apiFetch(emu, '/v1/jobs', {
    method: 'POST',
    json: {
      name: 'job-backups probe',
      recipe_id: 1,
      compute: { type: 'ss_agent' },
      storage: [{ storage_id: 1, priority: 1 }],
      schedules: [{ order: 1, cron: '0 2 * * *', timezone: 'UTC' }],
    },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: Job }).data;
}
/** A seeded job with history: completed backups with tags. */
let seeded: Job;

beforeAll(async () => {
  const res = await apiFetch(emu, '/v1/jobs?page_size=100');
  const jobs = ((await res.json()) as { data: Job[] }).data;
  for (const j of jobs) {
    if ((await serviceBackups(j.id, '&status=completed')).length >= 3) {
      seeded = j;
      break;
    }
  }
  expect(seeded).toBeTruthy();
});
beforeEach(() => emu.clearRequests());

describe('jobs backup start', () => {
  it('with no tag flag sends {"is_manual": true}; -q prints the backup_id alone', async () => {
    const job = await newJob();
    emu.clearRequests();
    const r = await cli(['jobs', 'backup', 'start', job.id, '-q']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'POST', path: `/v1/jobs/${job.id}/backups/start` });
    expect(sent()[0]!.body).toEqual({ is_manual: true });
    expect(r.stdout).toMatch(/^[0-9a-f-]{36}\n$/);
    const ids = (await serviceBackups(job.id)).map((b) => b.id);
    expect(ids).toEqual([r.stdout.trim()]);
  });

  it('the tag flags given are sent as true booleans; --json prints the whole answer (no data wrapper)', async () => {
    const job = await newJob();
    emu.clearRequests();
    const r = await cli(['jobs', 'backup', 'start', job.id, '--daily', '--weekly', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()[0]!.body).toEqual({ is_daily: true, is_weekly: true });
    const answer = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(answer).not.toHaveProperty('data');
    expect(answer).toMatchObject({ status: 'starting', tags: { is_daily: true, is_weekly: true } });
    expect(answer.backup_id).toMatch(UUID);
    expect(typeof answer.url).toBe('string');
    expect(Object.keys(answer)).toEqual(expect.arrayContaining(['status', 'backup_id', 'url', 'config', 'tags']));

    const all = await cli(['jobs', 'backup', 'start', job.id, '--manual', '--hourly', '--monthly', '-q']);
    expect(all.code, all.stderr).toBe(0);
    expect(sent()[1]!.body).toEqual({ is_manual: true, is_hourly: true, is_monthly: true });
  });

  it('table mode: "Backup <id> ... started (status starting)." and the url', async () => {
    const job = await newJob();
    const r = await cli(['jobs', 'backup', 'start', job.id, '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    const [first, second, ...rest] = r.stdout.split('\n');
    expect(first).toMatch(/^Backup [0-9a-f-]{36} .*started \(status starting\)\.$/);
    expect(second).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\S+$/);
    expect(rest).toEqual(['']);
  });

  it('a job that is not a UUID is a name: looked up, exit 5 when none has it, nothing started; an unknown job exits 5', async () => {
    const bad = await cli(['jobs', 'backup', 'start', 'web-01']);
    expect(bad.code).toBe(5);
    expect(bad.stderr).toContain('no job with the id or name "web-01"');
    expect(sent().map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/jobs']);
    const missing = await cli(['jobs', 'backup', 'start', '00000000-0000-4000-8000-000000000000']);
    expect(missing.code).toBe(5);
    expect(missing.stdout).toBe('');
  });
});

describe('jobs backup list', () => {
  it('sends status, bracket tags, ISO datetimes, sort and page size in the query', async () => {
    const r = await cli([
      'jobs', 'backup', 'list', seeded.id, '--status', 'completed', '--tags', 'daily,weekly', '--without-tags', 'manual',
      '--started-since', '2020-01-01', '--completed-since', '2020-01-02T00:00:00Z', '--sort', '-created_at', '--page-size', '50', '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'GET', path: `/v1/jobs/${seeded.id}/backups` });
    expect(sent()[0]!.query).toEqual({
      status: 'completed',
      'tags[daily]': '1',
      'tags[weekly]': '1',
      'tags[manual]': '0',
      started_since: '2020-01-01T00:00:00.000Z',
      completed_since: '2020-01-02T00:00:00.000Z',
      sort: '-created_at',
      page_size: '50',
    });
    const listed = JSON.parse(r.stdout) as Backup[];
    for (const b of listed) expect(b).toMatchObject({ status: 'completed' });
  });

  it('lists the newest first by default (sort=-created_at is sent); --sort still chooses (issue 25)', async () => {
    const r = await cli(['jobs', 'backup', 'list', seeded.id, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()[0]!.query).toEqual({ sort: '-created_at' });
    const times = (JSON.parse(r.stdout) as Backup[]).map((b) => b.created_at);
    expect(times.length).toBeGreaterThan(2);
    expect(times).toEqual([...times].sort().reverse());
    emu.clearRequests();
    const oldest = await cli(['jobs', 'backup', 'list', seeded.id, '--sort', 'created_at', '--json']);
    expect(sent()[0]!.query).toEqual({ sort: 'created_at' });
    const ascending = (JSON.parse(oldest.stdout) as Backup[]).map((b) => b.created_at);
    expect(ascending).toEqual([...ascending].sort());
    const help = await cli(['jobs', 'backup', 'list', '--help']);
    expect(help.stdout).toMatch(/--sort <field>[^]*newest first/);
  });

  it('--json prints exactly data; tsv one line per backup; -q the ids', async () => {
    const expected = await serviceBackups(seeded.id, '&sort=-created_at');
    const json = await cli(['jobs', 'backup', 'list', seeded.id, '--sort', '-created_at', '--page-size', '100', '--json']);
    expect(JSON.parse(json.stdout)).toEqual(expected);
    const tsv = await cli(['jobs', 'backup', 'list', seeded.id, '--sort', '-created_at', '--page-size', '100', '-o', 'tsv']);
    const lines = tsv.stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(expected.length);
    const tagWords = (t: Record<string, unknown>) => Object.keys(t).filter((k) => t[k] === true || t[k] === 1).map((k) => k.replace(/^is_/, '')).join(',');
    const b = expected[0]!;
    expect(lines[0]).toBe([b.id, b.status, tagWords(b.tags), b.created_at, b.started_at ?? '', b.completed_at ?? '', String(b.files.length)].join('\t'));
    const q = await cli(['jobs', 'backup', 'list', seeded.id, '--sort', '-created_at', '--all', '-q']);
    expect(q.stdout).toBe(expected.map((b) => `${b.id}\n`).join(''));
  });

  it('bad filters exit 2 naming the flag, nothing sent', async () => {
    for (const [args, flag] of [
      [['--status', 'done'], '--status'],
      [['--tags', 'yearly'], '--tags'],
      [['--without-tags', 'daily,never'], '--without-tags'],
      [['--started-since', 'last tuesday'], '--started-since'],
      [['--sort', 'status'], '--sort'],
    ] as Array<[string[], string]>) {
      const r = await cli(['jobs', 'backup', 'list', seeded.id, ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(flag);
    }
    expect(sent()).toHaveLength(0);
  });
});

describe('jobs backup delete', () => {
  it('without --all: exit 2 naming --all, nothing sent (even with --yes)', async () => {
    const job = await newJob();
    emu.clearRequests();
    const r = await cli(['jobs', 'backup', 'delete', job.id, '--yes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--all');
    expect(sent()).toHaveLength(0);
  });

  it('--all without --yes and without a terminal: exit 2, nothing sent', async () => {
    const job = await newJob();
    emu.clearRequests();
    const r = await cli(['jobs', 'backup', 'delete', job.id, '--all']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Delete ALL backups of job ${job.id}`);
    expect(r.stderr).toContain('--yes');
    expect(sent()).toHaveLength(0);
  });

  it('--all --yes: DELETE; the message on stderr in table mode, the whole answer with --json', async () => {
    const job = await newJob();
    await cli(['jobs', 'backup', 'start', job.id]);
    await cli(['jobs', 'backup', 'start', job.id]);
    emu.clearRequests();
    const r = await cli(['jobs', 'backup', 'delete', job.id, '--all', '--yes', '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'DELETE', path: `/v1/jobs/${job.id}/backups`, body: undefined });
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^2 backups? .*\n$/);

    const j = await cli(['jobs', 'backup', 'delete', job.id, '--all', '--yes', '--json']);
    expect(j.code, j.stderr).toBe(0);
    const answer = JSON.parse(j.stdout) as Record<string, unknown>;
    expect(Object.keys(answer)).toEqual(['message']);
    expect(typeof answer.message).toBe('string');
  });
});

describe('jobs backup get|delete <job> <backup> (as backups get|delete do)', () => {
  it('get shows the backup with its files, by the job\'s name too; a backup of another job exits 5', async () => {
    const jobs = ((await (await apiFetch(emu, '/v1/jobs?page_size=100')).json()) as { data: Job[] }).data;
    const job = jobs.find((j) => j.name === 'shop mysql')!;
    const [backup] = await serviceBackups(job.id);
    emu.clearRequests();
    const r = await cli(['jobs', 'backup', 'get', 'Shop MySQL', backup!.id, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse((await cli(['backups', 'get', backup!.id, '--json'])).stdout));
    expect(sent().map((q) => `${q.method} ${q.path.split('?')[0]}`)).toEqual(['GET /v1/jobs', `GET /v1/backups/${backup!.id}`, `GET /v1/backups/${backup!.id}`]);
    const table = await cli(['jobs', 'backup', 'get', job.id, backup!.id, '-o', 'table']);
    expect(table.stdout).toContain('\nFiles\n');

    const other = await newJob();
    const wrong = await cli(['jobs', 'backup', 'get', other.id, backup!.id]);
    expect(wrong.code).toBe(5);
    expect(wrong.stderr).toContain(`backup ${backup!.id} is not a backup of job ${other.id}`);
  });

  it('delete <job> <backup> deletes that backup only (after a confirmation), and refuses one of another job', async () => {
    const job = await newJob();
    await cli(['jobs', 'backup', 'start', job.id]);
    await cli(['jobs', 'backup', 'start', job.id]);
    const [first, second] = await serviceBackups(job.id);
    const other = await newJob();
    emu.clearRequests();
    const refused = await cli(['jobs', 'backup', 'delete', other.id, first!.id, '--yes']);
    expect(refused.code).toBe(5);
    expect(sent().filter((q) => q.method === 'DELETE')).toHaveLength(0);

    const asked = await cli(['jobs', 'backup', 'delete', job.id, first!.id]);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain(`Delete backup ${first!.id} of job ${job.id}: confirmation needed`);
    expect(sent().filter((q) => q.method === 'DELETE')).toHaveLength(0);

    const dry = await cli(['jobs', 'backup', 'delete', job.id, first!.id, '--dry-run']);
    expect(dry.stdout).toMatch(new RegExp(`^curl -X DELETE '[^']*/v1/backups/${first!.id}'`));

    emu.clearRequests();
    const r = await cli(['jobs', 'backup', 'delete', job.id, first!.id, '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`Deleted backup ${first!.id} of job ${job.id}.\n`);
    expect(sent().filter((q) => q.method === 'DELETE').map((q) => q.path)).toEqual([`/v1/backups/${first!.id}`]);
    expect((await serviceBackups(job.id)).map((b) => b.id)).toEqual([second!.id]);

    const both = await cli(['jobs', 'backup', 'delete', job.id, second!.id, '--all', '--yes']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('not both');
  });
});

describe('jobs encryption-key', () => {
  it('set sends encryption_key_id as an integer; 204 confirms on stderr; -q prints the job id', async () => {
    const job = await newJob();
    emu.clearRequests();
    const r = await cli(['jobs', 'encryption-key', 'set', job.id, '2']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'POST', path: `/v1/jobs/${job.id}/encryption-key` });
    expect(sent()[0]!.body).toEqual({ encryption_key_id: 2 });
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`Encryption key 2 set on job ${job.id}.\n`);
    const q = await cli(['jobs', 'encryption-key', 'set', job.id, '1', '-q']);
    expect(q.stdout).toBe(`${job.id}\n`);
  });

  it('set with a key id that is not a number exits 2 naming <key-id>, nothing sent', async () => {
    const job = await newJob();
    emu.clearRequests();
    const r = await cli(['jobs', 'encryption-key', 'set', job.id, 'ops-2024']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('<key-id>');
    expect(sent()).toHaveLength(0);
  });

  it('remove asks, and with --yes sends DELETE', async () => {
    const job = await newJob();
    emu.clearRequests();
    const asked = await cli(['jobs', 'encryption-key', 'remove', job.id]);
    expect(asked.code).toBe(2);
    expect(sent()).toHaveLength(0);
    const r = await cli(['jobs', 'encryption-key', 'remove', job.id, '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()[0]).toMatchObject({ method: 'DELETE', path: `/v1/jobs/${job.id}/encryption-key`, body: undefined });
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`Encryption key removed from job ${job.id}.\n`);
  });
});

describe('jobs proxy', () => {
  it('set sends proxy_id as an integer; remove asks, then sends DELETE', async () => {
    const job = await newJob();
    emu.clearRequests();
    const r = await cli(['jobs', 'proxy', 'set', job.id, '1']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()[0]).toMatchObject({ method: 'POST', path: `/v1/jobs/${job.id}/proxy` });
    expect(sent()[0]!.body).toEqual({ proxy_id: 1 });
    expect(r.stderr).toBe(`Proxy 1 set on job ${job.id}.\n`);
    emu.clearRequests();
    expect((await cli(['jobs', 'proxy', 'remove', job.id])).code).toBe(2);
    expect(sent()).toHaveLength(0);
    const rm = await cli(['jobs', 'proxy', 'remove', job.id, '--yes', '-q']);
    expect(rm.code, rm.stderr).toBe(0);
    expect(sent()[0]).toMatchObject({ method: 'DELETE', path: `/v1/jobs/${job.id}/proxy` });
    expect(rm.stdout).toBe(`${job.id}\n`);
  });

  it('a proxy the service does not know is refused: exit 1 with its message', async () => {
    const job = await newJob();
    const r = await cli(['jobs', 'proxy', 'set', job.id, '99']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('proxy_id');
  });

  it('set with a proxy id that is not a number exits 2, nothing sent', async () => {
    const job = await newJob();
    emu.clearRequests();
    const r = await cli(['jobs', 'proxy', 'set', job.id, 'eu-egress']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('<proxy-id>');
    expect(sent()).toHaveLength(0);
  });
});

describe('jobs schedule update', () => {
  it('sends the flags given as flat fields with integer counts', async () => {
    const job = await newJob();
    const sid = job.schedule[0]!.id;
    emu.clearRequests();
    const r = await cli([
      'jobs', 'schedule', 'update', job.id, String(sid), '--cron', '30 3 * * *', '--timezone', 'Europe/Paris', '--run-offset', '5',
      '--retention-hourly', '0', '--retention-daily', '14', '--retention-weekly', '8', '--retention-monthly', '12',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'PATCH', path: `/v1/jobs/${job.id}/schedules/${sid}` });
    expect(sent()[0]!.body).toEqual({
      cron: '30 3 * * *',
      timezone: 'Europe/Paris',
      run_offset: 5,
      retention_hourly: 0,
      retention_daily: 14,
      retention_weekly: 8,
      retention_monthly: 12,
    });
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`Updated schedule ${sid} of job ${job.id}.\n`);
    const after = (await serviceJob(job.id)).schedule[0]!;
    expect(after).toMatchObject({ cron: '30 3 * * *', timezone: 'Europe/Paris', run_offset: 5, retention: { hourly: 0, daily: 14, weekly: 8, monthly: 12 } });
  });

  it('only the flags given are sent; -q prints the schedule id', async () => {
    const job = await newJob();
    const sid = job.schedule[0]!.id;
    emu.clearRequests();
    const r = await cli(['jobs', 'schedule', 'update', job.id, String(sid), '--retention-daily', '3', '-q']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()[0]!.body).toEqual({ retention_daily: 3 });
    expect(r.stdout).toBe(`${sid}\n`);
  });

  it('no flag, a 4-field cron or a negative count exits 2 and sends nothing', async () => {
    const job = await newJob();
    const sid = String(job.schedule[0]!.id);
    emu.clearRequests();
    for (const [args, message] of [
      [[], /--timezone, --run-offset, --cron/],
      [['--cron', '0 3 * *'], /--cron/],
      [['--retention-daily', '-1'], /--retention-daily/],
      [['--run-offset', 'soon'], /--run-offset/],
    ] as Array<[string[], RegExp]>) {
      const r = await cli(['jobs', 'schedule', 'update', job.id, sid, ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect((await cli(['jobs', 'schedule', 'update', job.id, 'daily', '--cron', '0 1 * * *'])).code).toBe(2);
    expect(sent()).toHaveLength(0);
  });
});

describe('jobs storage set', () => {
  it('sends the storage list with integer ids and priorities (position by default)', async () => {
    const job = await newJob();
    emu.clearRequests();
    const r = await cli(['jobs', 'storage', 'set', job.id, '--storage', '3', '--storage', '1:7']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ method: 'PATCH', path: `/v1/jobs/${job.id}/storage` });
    expect(sent()[0]!.body).toEqual({ storage: [{ storage_id: 3, priority: 1 }, { storage_id: 1, priority: 7 }] });
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`Storage of job ${job.id} set.\n`);
    expect((await serviceJob(job.id)).storage.map((s) => s.id).sort()).toEqual([1, 3]);
  });

  it('without --storage, or with a bad one, exits 2 naming --storage, nothing sent', async () => {
    const job = await newJob();
    emu.clearRequests();
    for (const args of [[], ['--storage', ''], ['--storage', '1:high']]) {
      const r = await cli(['jobs', 'storage', 'set', job.id, ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain('--storage');
    }
    expect(sent()).toHaveLength(0);
  });
});
