// jobs backup latest and jobs backup download against the emulator: the
// requests, the files on disk, the exit codes, and no token on the files host.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { startCli } from '../helpers/spawn.js';
import { apiFetch, apiRequests, fileRequests, startTestEmulator } from '../helpers/emulator.js';
import type { Emulator } from '../../src/emulator/index.js';

let emu: Emulator;
let cfg: ReturnType<typeof tempConfigDir>;
let job: string;
let completedFiles: string[];
const env = () => ({ BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: emu.token, BACKUPCTL_CONFIG_DIR: cfg.dir });
const cli = (args: string[]) => runCli(args, { env: env() });
const tmp = () => mkdtempSync(path.join(tmpdir(), 'backupctl-dl-'));

beforeAll(async () => {
  emu = await startTestEmulator({ seed: 'demo' });
  cfg = tempConfigDir();
  const jobs = (await (await apiFetch(emu, '/v1/jobs?page_size=100')).json()) as { data: Array<{ id: string }> };
  for (const j of jobs.data) {
    const list = (await (await apiFetch(emu, `/v1/jobs/${j.id}/backups?status=completed&sort=-created_at&page_size=15`)).json()) as {
      data: Array<{ files?: Array<{ name: string }> }>;
    };
    if ((list.data[0]?.files ?? []).length > 0) {
      job = j.id;
      completedFiles = list.data[0]!.files!.map((f) => f.name).sort();
      break;
    }
  }
});
afterAll(async () => {
  await emu.close();
  cfg.cleanup();
});
beforeEach(() => {
  emu.requests.length = 0;
});

describe('jobs backup latest', () => {
  it('asks for the newest first and prints it', async () => {
    const r = await cli(['jobs', 'backup', 'latest', job, '--status', 'completed', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const b = JSON.parse(r.stdout);
    expect(b.status).toBe('completed');
    expect(apiRequests(emu)[0]).toMatchObject({
      method: 'GET',
      path: `/v1/jobs/${job}/backups`,
      query: { sort: '-created_at', page_size: '15', status: 'completed' },
    });
    const q = await cli(['jobs', 'backup', 'latest', job, '--status', 'completed', '-q']);
    expect(q.stdout).toBe(`${b.id}\n`);
  });

  it('exits 9 when the newest is older than --max-age, or there is none', async () => {
    const old = await cli(['jobs', 'backup', 'latest', job, '--status', 'completed', '--max-age', '1s']);
    expect(old.code).toBe(9);
    expect(old.stdout).toBe('');
    expect(old.stderr).toMatch(/older than --max-age/);
    const none = await cli(['jobs', 'backup', 'latest', job, '--status', 'expired']);
    expect(none.code).toBe(9);
    expect(none.stderr).toContain('has no expired backup');
  });

  it('checks its flags before sending', async () => {
    const r = await cli(['jobs', 'backup', 'latest', job, '--max-age', 'soon']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--max-age');
    expect(apiRequests(emu)).toHaveLength(0);
  });
});

describe('jobs backup download', () => {
  it('--latest writes every file, sends no token to the files host, -q prints the paths', async () => {
    const dir = tmp();
    const r = await cli(['jobs', 'backup', 'download', job, '--latest', '--dir', dir, '-q']);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(completedFiles);
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(completedFiles.map((f) => path.join(dir, f)));
    expect(fileRequests(emu).length).toBe(completedFiles.length);
    for (const f of fileRequests(emu)) expect(f.headers.authorization).toBeUndefined();
    for (const f of completedFiles) expect(statSync(path.join(dir, f)).size).toBeGreaterThan(0);
    rmSync(dir, { recursive: true });
  });

  it('a backup id: GET /v1/backups/{id}, then the files', async () => {
    const latest = JSON.parse((await cli(['jobs', 'backup', 'latest', job, '--status', 'completed', '--json'])).stdout);
    emu.requests.length = 0;
    const dir = tmp();
    const r = await cli(['jobs', 'backup', 'download', job, latest.id, '--dir', dir, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(apiRequests(emu)[0]).toMatchObject({ method: 'GET', path: `/v1/backups/${latest.id}` });
    const out = JSON.parse(r.stdout) as Array<{ name: string; bytes: number }>;
    expect(out.map((f) => f.name).sort()).toEqual(completedFiles);
    rmSync(dir, { recursive: true });
  });

  it('never overwrites without --force (exit 2, the file kept)', async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, completedFiles[0]!), 'mine');
    const r = await cli(['jobs', 'backup', 'download', job, '--latest', '--dir', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--force');
    expect(readFileSync(path.join(dir, completedFiles[0]!), 'utf8')).toBe('mine');
    expect(fileRequests(emu)).toHaveLength(0);
    const f = await cli(['jobs', 'backup', 'download', job, '--latest', '--dir', dir, '--force']);
    expect(f.code, f.stderr).toBe(0);
    expect(readFileSync(path.join(dir, completedFiles[0]!), 'utf8')).not.toBe('mine');
    rmSync(dir, { recursive: true });
  });

  it('needs a backup id or --latest, not both', async () => {
    for (const args of [[], ['--latest', '3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c']]) {
      const r = await cli(['jobs', 'backup', 'download', job, ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--latest');
    }
    expect(apiRequests(emu)).toHaveLength(0);
  });

  it('Ctrl-C during a download exits 130 and leaves no partial file', async () => {
    const dir = tmp();
    emu.setFaults([{ fault: 'slow-body', path: '/files' }]);
    const run = startCli(['jobs', 'backup', 'download', job, '--latest', '--dir', dir], env());
    const deadline = Date.now() + 10_000;
    while (fileRequests(emu).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 200));
    run.child.kill('SIGINT');
    const res = await run.done;
    emu.setFaults([]);
    expect(res.code).toBe(130);
    expect(res.stderr).toContain('Interrupted.');
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync(dir)).toBe(true);
    rmSync(dir, { recursive: true });
  });
});
