// Messages that tell the next step (issue 13, part 7): the built CLI against
// the emulator, asserting the words a user reads on stderr and the exit code.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { apiFetch, withEmulatorCli } from '../helpers/emulator.js';
import { startCli } from '../helpers/spawn.js';

// Started backups stay running for the length of a test.
const { emu, env } = withEmulatorCli({ tickMs: 60_000 });

function configWithToken(token: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-msg-'));
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ current_profile: 'ops', profiles: { ops: { base_url: emu.url, token } } }), { mode: 0o600 });
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

describe('a refused token (401) says where it came from and what to do', () => {
  it('from the environment', async () => {
    const r = await runCli(['servers', 'list'], { env: { ...env(), BACKUPCTL_TOKEN: 'not-the-token' } });
    expect(r.code).toBe(4);
    expect(r.stderr).toBe(
      'error: 401 Unauthorized: GET /v1/servers: Unauthenticated.\n' +
        '  The token came from BACKUPCTL_TOKEN (the environment), and the service refused it.\n' +
        '  Check its value, or unset it and run `backupctl auth login`.\n',
    );
    expect(r.stderr).not.toContain('not-the-token');
  });

  it('from a profile', async () => {
    const cfg = configWithToken('stale-token-1234');
    try {
      const r = await runCli(['jobs', 'list', '--all'], { env: { BACKUPCTL_CONFIG_DIR: cfg.dir } });
      expect(r.code).toBe(4);
      expect(r.stderr).toContain(`  The token came from profile "ops" (${path.join(cfg.dir, 'config.json')}), and the service refused it.\n`);
      expect(r.stderr).toContain('  Log in again: backupctl auth login --profile ops\n');
      expect(r.stderr).not.toContain('stale-token-1234');
    } finally {
      cfg.cleanup();
    }
  });
});

describe('a missing token has one wording everywhere', () => {
  it('servers list, auth status and auth token say the same', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-msg-'));
    try {
      const noToken = { BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_CONFIG_DIR: dir };
      for (const args of [['servers', 'list'], ['auth', 'status'], ['auth', 'token']]) {
        const r = await runCli(args, { env: noToken });
        expect(r.code, args.join(' ')).toBe(3);
        expect(r.stderr.split('\n').slice(0, 2), args.join(' ')).toEqual([
          'error: no API token for profile "default"',
          '  Run `backupctl auth login`, or set BACKUPCTL_TOKEN.',
        ]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Ctrl-C during --wait', () => {
  it('says the backup keeps running, with its id and the commands to follow it; exit 130', async () => {
    const jobs = (await (await apiFetch(emu, '/v1/jobs?page_size=100')).json()) as { data: Array<{ id: string; name: string }> };
    const job = jobs.data.find((j) => j.name === 'archive files')!;
    const run = startCli(['jobs', 'backup', 'start', job.id, '--wait', '--poll-interval', '1s'], env());
    const deadline = Date.now() + 10_000;
    while (!run.stderr().includes('waiting for it to end') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const id = /Backup ([0-9a-f-]{36}) started/.exec(run.stderr())?.[1];
    expect(id).toBeDefined();
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(r.stderr).toContain(
      `Interrupted.\nBackup ${id} of job ${job.id} keeps running on the service; only the wait stopped.\n` +
        `Follow it: backupctl backups get ${id}\n   or all: backupctl jobs backup list ${job.id} --sort -created_at\n`,
    );
  });
});
