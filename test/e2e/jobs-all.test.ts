// jobs, job backups, restores, encryption keys and single backups through the
// built CLI against the emulator: the exact request (with JSON types), the
// output and the exit code of every command.
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import http from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { apiRequests, startTestEmulator, withEmulatorCli } from '../helpers/emulator.js';

let jobs: Array<{ id: string; name: string; schedule: Array<{ id: number }> }>;
const { emu, env, cli, session } = withEmulatorCli({ seed: 'demo' });
const sent = () => apiRequests(emu);
// A real key: the emulator checks the PEM as the service would.
const PEM = generateKeyPairSync('rsa', { modulusLength: 4096 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();

beforeAll(async () => {
  jobs = JSON.parse((await runCli(['jobs', 'list', '--all', '--json'], { env: env() })).stdout);
});
beforeEach(() => {
  emu.requests.length = 0;
});
const healthy = () => jobs.find((j) => !/fail/.test(j.name))!;

describe('jobs', () => {
  it('list: filters and sort in the query, tsv one line per job', async () => {
    const r = await cli(['jobs', 'list', '--sort', '-last_ran_at', '--page-size', '15']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()[0]).toMatchObject({ method: 'GET', path: '/v1/jobs', query: { sort: '-last_ran_at', page_size: '15' } });
    expect(r.stdout.split('\n').filter(Boolean).length).toBe(Math.min(15, jobs.length));
  });

  it('get: exactly data with --json; sections in the table', async () => {
    const j = healthy();
    const r = await cli(['jobs', 'get', j.id, '--json']);
    expect(JSON.parse(r.stdout).id).toBe(j.id);
    expect(sent()[0]).toMatchObject({ method: 'GET', path: `/v1/jobs/${j.id}` });
    const t = await cli(['jobs', 'get', j.id, '-o', 'table']);
    for (const title of ['Schedules', 'Storage', 'Last backups']) expect(t.stdout).toContain(`\n${title}`);
  });

  it('create from flags: compute, config, storage and one schedule with the wire types', async () => {
    const r = await cli([
      'jobs', 'create', '--name', 'site', '--recipe-id', '1', '--server', '1', '--config', 'root_path=/var/www',
      '--config', 'compression_level=6', '--storage', '1', '--storage', '2:5', '--cron', '0 2 * * *',
      '--timezone', 'Europe/Paris', '--retention-daily', '7', '--encryption-key', '1', '--proxy', '2', '-q',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^[0-9a-f-]{36}\n$/);
    expect(sent()[0]!.body).toEqual({
      name: 'site',
      recipe_id: 1,
      compute: { type: 'server', server_id: 1 },
      config: { root_path: '/var/www', compression_level: 6 },
      storage: [{ storage_id: 1, priority: 1 }, { storage_id: 2, priority: 5 }],
      schedules: [{ order: 1, cron: '0 2 * * *', timezone: 'Europe/Paris', retention_daily: 7 }],
      encryption_key_id: '1',
      proxy_id: 2,
    });
  });

  it('create from --file, a flag overriding its name; serverless compute', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'jobs-'));
    const file = path.join(dir, 'job.json');
    writeFileSync(file, JSON.stringify({ name: 'from-file', recipe_id: 1, storage: [{ storage_id: 1, priority: 1 }], schedules: [{ order: 1, cron: '0 3 * * *', timezone: 'UTC' }] }));
    const r = await cli(['jobs', 'create', '--file', file, '--name', 'override', '--serverless', 'EU', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()[0]!.body).toMatchObject({ name: 'override', compute: { type: 'ss_serverless', region: 'EU' }, recipe_id: 1 });
    expect(JSON.parse(r.stdout).name).toBe('override');
    rmSync(dir, { recursive: true });
  });

  it('create: bad input exits 2 naming the flag, nothing sent', async () => {
    for (const [args, needle] of [
      [['--name', 'x', '--recipe-id', '1', '--server', '1', '--agent', '--storage', '1', '--cron', '0 2 * * *'], '--server, --serverless or --agent'],
      [['--name', 'x', '--recipe-id', '1', '--server', '1', '--storage', '1', '--cron', '0 2 * *'], '--cron'],
      [['--name', 'x', '--server', '1'], '--recipe-id'],
      [['--serverless', 'ASIA'], '--serverless'],
      [['--storage', '1:x'], '--storage'],
    ] as Array<[string[], string]>) {
      const r = await cli(['jobs', 'create', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(needle);
    }
    expect(sent()).toHaveLength(0);
  });

  it('update: storage items with integer ids and priorities; nothing to change is exit 2', async () => {
    const j = healthy();
    const r = await cli(['jobs', 'update', j.id, '--storage', '2:1', '--storage', '1:2']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()[0]).toMatchObject({ method: 'PATCH', path: `/v1/jobs/${j.id}`, body: { storage: [{ storage_id: 2, priority: 1 }, { storage_id: 1, priority: 2 }] } });
    expect((await cli(['jobs', 'update', j.id])).code).toBe(2);
    expect((await cli(['jobs', 'get', 'not-a-uuid'])).code).toBe(5);
  });

  it('delete asks; --yes deletes', async () => {
    const created = (await cli(['jobs', 'create', '--name', 'gone', '--recipe-id', '1', '--agent', '--storage', '1', '--cron', '0 1 * * *', '-q'])).stdout.trim();
    emu.requests.length = 0;
    expect((await cli(['jobs', 'delete', created])).code).toBe(2);
    expect(sent()).toHaveLength(0);
    const r = await cli(['jobs', 'delete', created, '--yes']);
    expect(r.code).toBe(0);
    expect(sent()[0]).toMatchObject({ method: 'DELETE', path: `/v1/jobs/${created}` });
    expect((await cli(['jobs', 'get', created])).code).toBe(5);
  });
});

describe('jobs backup', () => {
  it('start: is_manual by default, the tags given otherwise; -q prints backup_id, --json the whole answer', async () => {
    const j = healthy();
    const q = await cli(['jobs', 'backup', 'start', j.id, '-q']);
    expect(q.code, q.stderr).toBe(0);
    expect(sent()[0]).toMatchObject({ method: 'POST', path: `/v1/jobs/${j.id}/backups/start`, body: { is_manual: true } });
    const id = q.stdout.trim();
    const j2 = await cli(['jobs', 'backup', 'start', j.id, '--daily', '--weekly', '--json']);
    expect(sent()[1]!.body).toEqual({ is_daily: true, is_weekly: true });
    const answer = JSON.parse(j2.stdout);
    expect(answer).toMatchObject({ status: 'starting' });
    expect(typeof answer.backup_id).toBe('string');
    const list = JSON.parse((await cli(['jobs', 'backup', 'list', j.id, '--sort', '-created_at', '--json'])).stdout) as Array<{ id: string }>;
    expect(list.map((b) => b.id)).toContain(id);
  });

  it('start --wait: exit 0 on completed, 8 on failed; -q the backup id', async () => {
    const ok = await cli(['jobs', 'backup', 'start', healthy().id, '--wait', '--poll-interval', '1s', '-q']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^[0-9a-f-]{36}\n$/);
    const failing = jobs.find((j) => /fail/.test(j.name));
    expect(failing).toBeTruthy();
    const bad = await cli(['jobs', 'backup', 'start', failing!.id, '--wait', '--poll-interval', '1s']);
    expect(bad.code).toBe(8);
    expect(bad.stderr).toMatch(/ended failed/);
  });

  it('start --wait-timeout ends the wait with exit 6', async () => {
    // An emulator whose backups take a minute: with the suite's 20 ms ticks a loaded machine
    // saw the backup completed at the first poll (exit 0).
    const slow = await startTestEmulator({ seed: 'demo', tickMs: 60_000 });
    try {
      const r = await runCli(['jobs', 'backup', 'start', healthy().name, '--wait', '--poll-interval', '1s', '--wait-timeout', '15ms'], {
        env: { BACKUPCTL_BASE_URL: slow.url, BACKUPCTL_TOKEN: slow.token, BACKUPCTL_CONFIG_DIR: session.cfg.dir },
      });
      expect(r.code, r.stderr).toBe(6);
      expect(r.stderr).toContain('gave up waiting');
    } finally {
      await slow.close();
    }
  });

  it('start --lock: a held lock exits 10 and sends nothing', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lock-'));
    const lock = path.join(dir, 'job.lock');
    writeFileSync(lock, JSON.stringify({ pid: process.pid, started_at: new Date().toISOString() }));
    const r = await cli(['jobs', 'backup', 'start', healthy().id, '--lock', lock]);
    expect(r.code).toBe(10);
    expect(sent()).toHaveLength(0);
    rmSync(lock);
    const ok = await cli(['jobs', 'backup', 'start', healthy().id, '--lock', lock, '--jitter', '10ms', '-q']);
    expect(ok.code, ok.stderr).toBe(0);
    rmSync(dir, { recursive: true });
  });

  it('start --healthcheck-url: /start then the URL; /fail when it fails; never the token', async () => {
    const pings: string[] = [];
    const server = http.createServer((req, res) => {
      pings.push(`${req.url} ${req.headers.authorization ?? ''}`.trim());
      res.end('OK');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ping/u1`;
    const ok = await cli(['jobs', 'backup', 'start', healthy().id, '--healthcheck-url', url, '-q']);
    expect(ok.code).toBe(0);
    expect(pings).toEqual(['/ping/u1/start', '/ping/u1']);
    pings.length = 0;
    const bad = await cli(['jobs', 'backup', 'start', '00000000-0000-4000-8000-000000000000', '--healthcheck-url', url]);
    expect(bad.code).toBe(5);
    expect(pings).toEqual(['/ping/u1/start', '/ping/u1/fail']);
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('list: tags in bracket form, datetimes as ISO UTC', async () => {
    const j = healthy();
    const r = await cli(['jobs', 'backup', 'list', j.id, '--status', 'completed', '--tags', 'daily', '--without-tags', 'manual', '--started-since', '2026-01-01', '--json']);
    expect(r.code, r.stderr).toBe(0);
    // Newest first unless --sort says otherwise (issue 25).
    expect(sent()[0]!.query).toEqual({ status: 'completed', 'tags[daily]': '1', 'tags[manual]': '0', started_since: '2026-01-01T00:00:00.000Z', sort: '-created_at' });
    expect((await cli(['jobs', 'backup', 'list', j.id, '--status', 'done'])).code).toBe(2);
  });

  it('delete needs --all, asks, and prints the service message', async () => {
    const created = (await cli(['jobs', 'create', '--name', 'to-empty', '--recipe-id', '1', '--agent', '--storage', '1', '--cron', '0 1 * * *', '-q'])).stdout.trim();
    await cli(['jobs', 'backup', 'start', created]);
    emu.requests.length = 0;
    const noAll = await cli(['jobs', 'backup', 'delete', created, '--yes']);
    expect(noAll.code).toBe(2);
    expect(noAll.stderr).toContain('--all');
    expect((await cli(['jobs', 'backup', 'delete', created, '--all'])).code).toBe(2);
    expect(sent()).toHaveLength(0);
    const r = await cli(['jobs', 'backup', 'delete', created, '--all', '--yes', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()[0]).toMatchObject({ method: 'DELETE', path: `/v1/jobs/${created}/backups` });
    expect(typeof JSON.parse(r.stdout).message).toBe('string');
  });
});

describe('job encryption key, proxy, schedule, storage', () => {
  it('encryption-key set sends an integer id; remove asks', async () => {
    const j = healthy();
    expect((await cli(['jobs', 'encryption-key', 'set', j.id, '2'])).code).toBe(0);
    expect(sent()[0]).toMatchObject({ method: 'POST', path: `/v1/jobs/${j.id}/encryption-key`, body: { encryption_key_id: 2 } });
    expect((await cli(['jobs', 'encryption-key', 'remove', j.id])).code).toBe(2);
    expect((await cli(['jobs', 'encryption-key', 'remove', j.id, '--yes'])).code).toBe(0);
    expect(sent().at(-1)).toMatchObject({ method: 'DELETE', path: `/v1/jobs/${j.id}/encryption-key` });
  });

  it('proxy set sends an integer id; remove deletes', async () => {
    const j = healthy();
    expect((await cli(['jobs', 'proxy', 'set', j.id, '1'])).code).toBe(0);
    expect(sent()[0]).toMatchObject({ method: 'POST', path: `/v1/jobs/${j.id}/proxy`, body: { proxy_id: 1 } });
    expect((await cli(['jobs', 'proxy', 'set', j.id, 'x'])).code).toBe(2);
    expect((await cli(['jobs', 'proxy', 'remove', j.id, '--yes'])).code).toBe(0);
    expect(sent().at(-1)).toMatchObject({ method: 'DELETE', path: `/v1/jobs/${j.id}/proxy` });
  });

  it('schedule update sends flat fields; nothing given is exit 2', async () => {
    const j = healthy();
    const sid = j.schedule[0]!.id;
    const r = await cli(['jobs', 'schedule', 'update', j.id, String(sid), '--cron', '30 3 * * *', '--timezone', 'UTC', '--run-offset', '0', '--retention-daily', '14']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()[0]).toMatchObject({ method: 'PATCH', path: `/v1/jobs/${j.id}/schedules/${sid}`, body: { cron: '30 3 * * *', timezone: 'UTC', run_offset: 0, retention_daily: 14 } });
    expect((await cli(['jobs', 'schedule', 'update', j.id, String(sid)])).code).toBe(2);
  });

  it('storage set sends the list', async () => {
    const j = healthy();
    expect((await cli(['jobs', 'storage', 'set', j.id, '--storage', '1'])).code).toBe(0);
    expect(sent()[0]).toMatchObject({ method: 'PATCH', path: `/v1/jobs/${j.id}/storage`, body: { storage: [{ storage_id: 1, priority: 1 }] } });
    expect((await cli(['jobs', 'storage', 'set', j.id])).code).toBe(2);
  });
});

describe('restores, encryption keys, backups', () => {
  it('restores list and get', async () => {
    const list = await cli(['restores', 'list', '--status', 'completed', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(sent()[0]).toMatchObject({ method: 'GET', path: '/v1/restore-jobs', query: { status: 'completed' } });
    const all = JSON.parse((await cli(['restores', 'list', '--json'])).stdout) as Array<{ id: string }>;
    const r = await cli(['restores', 'get', all[0]!.id, '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('\nFiles');
    expect((await cli(['restores', 'list', '--status', 'done'])).code).toBe(2);
  });

  it('encryption-keys create reads a PEM file (or stdin) and delete asks', async () => {
    const r = await cli(['encryption-keys', 'create', '--name', 'k1', '--public-key-file', '-', '--json'], PEM);
    expect(r.code, r.stderr).toBe(0);
    expect(sent()[0]).toMatchObject({ method: 'POST', path: '/v1/encryption-keys', body: { name: 'k1', public_key: PEM } });
    const id = JSON.parse(r.stdout).id;
    const bad = await cli(['encryption-keys', 'create', '--name', 'k2', '--public-key-file', '-'], 'not a key');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--public-key-file');
    expect((await cli(['encryption-keys', 'delete', String(id), '--yes'])).code).toBe(0);
    expect(sent().at(-1)).toMatchObject({ method: 'DELETE', path: `/v1/encryption-keys/${id}` });
  });

  it('backups get, urls and delete', async () => {
    const j = healthy();
    const b = JSON.parse((await cli(['jobs', 'backup', 'list', j.id, '--status', 'completed', '--json'])).stdout)[0];
    emu.requests.length = 0;
    const g = await cli(['backups', 'get', b.id, '--json']);
    expect(JSON.parse(g.stdout).id).toBe(b.id);
    const u = await cli(['backups', 'urls', b.id]);
    expect(u.code, u.stderr).toBe(0);
    expect(sent()[1]).toMatchObject({ method: 'POST', path: `/v1/backups/${b.id}/download` });
    for (const line of u.stdout.trim().split('\n')) expect(line).toMatch(/^\S+\thttp:\/\/127\.0\.0\.1:\d+\/files\//);
    const uj = JSON.parse((await cli(['backups', 'urls', b.id, '--json'])).stdout);
    expect(typeof Object.values(uj)[0]).toBe('string');
    expect((await cli(['backups', 'delete', b.id])).code).toBe(2);
    expect((await cli(['backups', 'delete', b.id, '--yes'])).code).toBe(0);
    expect((await cli(['backups', 'get', b.id])).code).toBe(5);
    expect((await cli(['backups', 'get', 'nope'])).code).toBe(2);
  });
});
