// Issue 18, finding 10: hostile local state and signals. A `__proto__` profile is
// not dropped by the next write; a config file or folder other users can reach is
// warned about; SIGTERM ends a download like Ctrl-C (no .part file left behind);
// Ctrl-C while a POST is out says it may have reached the service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { startCli } from '../helpers/spawn.js';
import { startHostileServer, type HostileRequest, type LocalServer } from '../helpers/servers.js';

const JOB = '3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c';
const ID = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

describe('a __proto__ profile in the config file', () => {
  it('is not dropped by a write: the file is reported broken (exit 3) and kept byte for byte', async () => {
    const cfg = tempConfigDir();
    try {
      const file = path.join(cfg.dir, 'config.json');
      // Written by hand: JSON.stringify of an object literal has no own __proto__ key to write.
      const raw = '{"current_profile":"default","profiles":{"default":{"base_url":"http://127.0.0.1:9","token":"tok-a"},"__proto__":{"base_url":"http://127.0.0.1:8","token":"tok-b"}}}\n';
      writeFileSync(file, raw, { mode: 0o600 });
      for (const args of [['config', 'set', 'output', 'json'], ['profiles', 'list'], ['auth', 'logout', '--profile', 'default']]) {
        const r = await runCli(['--config-dir', cfg.dir, ...args]);
        expect(r.code, args.join(' ')).toBe(3);
        expect(r.stderr, args.join(' ')).toContain('profiles.__proto__: invalid profile name');
        expect(readFileSync(file, 'utf8')).toBe(raw);
      }
    } finally {
      cfg.cleanup();
    }
  });
});

describe('a config others can read', () => {
  const raw = '{"profiles":{"default":{"base_url":"http://127.0.0.1:9","token":"tok-exposed-secret"}}}\n';
  it('a file others can read and a folder others can enter are warned about, with the fix', async () => {
    const cfg = tempConfigDir();
    try {
      const file = path.join(cfg.dir, 'config.json');
      writeFileSync(file, raw, { mode: 0o644 });
      chmodSync(file, 0o644);
      chmodSync(cfg.dir, 0o755);
      const r = await runCli(['--config-dir', cfg.dir, 'auth', 'status']);
      expect(r.stderr).toContain(`warning: the config file ${file} holds a token and other users can read it (mode 0644); run: chmod 600 ${file}`);
      expect(r.stderr).toContain(`warning: the config folder ${cfg.dir} can be read or entered by other users (mode 0755); run: chmod 700 ${cfg.dir}`);
      expect(r.stdout + r.stderr).not.toContain('tok-exposed-secret');
      chmodSync(file, 0o600);
      chmodSync(cfg.dir, 0o711);
      const dirOnly = await runCli(['--config-dir', cfg.dir, 'auth', 'status']);
      expect(dirOnly.stderr).not.toContain('config file');
      expect(dirOnly.stderr).toContain('(mode 0711)');
      chmodSync(cfg.dir, 0o700);
      const quiet = await runCli(['--config-dir', cfg.dir, 'auth', 'status']);
      expect(quiet.stderr).not.toContain('warning');
    } finally {
      cfg.cleanup();
    }
  });
});

describe('signals', () => {
  let srv: LocalServer & { received: HostileRequest[] };
  let cfg: ReturnType<typeof tempConfigDir>;
  beforeAll(async () => {
    cfg = tempConfigDir();
    srv = await startHostileServer((req, res) => {
      if (req.url === `/v1/backups/${ID}`) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ data: { id: ID, job_id: JOB, status: 'completed', files: [{ name: 'db.sql', size: 100_000, url: `${srv.url}/files/db.sql` }] } }));
      } else if (req.url === '/files/db.sql') {
        // 40,000 bytes, then nothing: the transfer hangs until the signal.
        res.writeHead(200, { 'content-length': '100000' });
        res.write(Buffer.alloc(40_000, 7));
      }
      // Anything else (the POST) is held unanswered.
    });
  });
  afterAll(async () => {
    await srv.close();
    cfg.cleanup();
  });
  const env = () => ({ BACKUPCTL_BASE_URL: srv.url, BACKUPCTL_TOKEN: 'tok-signals', BACKUPCTL_CONFIG_DIR: cfg.dir });

  async function until(test: () => boolean, what: string): Promise<void> {
    for (let i = 0; i < 400 && !test(); i++) await new Promise((r) => setTimeout(r, 25));
    if (!test()) throw new Error(`never happened: ${what}`);
  }

  it('SIGTERM during a download: exit 143, "Terminated.", no .part file left', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bctl-term-'));
    try {
      const run = startCli(['jobs', 'backup', 'download', JOB, ID, '--dir', dir], env());
      await until(() => readdirSync(dir).length > 0, 'a .part file');
      await new Promise((r) => setTimeout(r, 200));
      run.child.kill('SIGTERM');
      const r = await run.done;
      expect(r.code).toBe(143);
      expect(r.stderr).toContain('Terminated.');
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('Ctrl-C while jobs backup start waits for its answer: exit 130 and the "may have reached" hint', async () => {
    srv.received.length = 0;
    const run = startCli(['jobs', 'backup', 'start', JOB], env());
    await until(() => srv.received.some((q) => q.method === 'POST'), 'the POST');
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(r.stderr).toContain('Interrupted.');
    expect(r.stderr).toContain(`POST /v1/jobs/${JOB}/backups/start was sent and may have reached the service.`);
    expect(r.stderr).toContain(`Check before retrying: backupctl jobs backup list ${JOB} --sort -created_at`);
  });

  it('SIGTERM likewise', async () => {
    const run = startCli(['jobs', 'backup', 'start', JOB], env());
    const before = srv.received.filter((q) => q.method === 'POST').length;
    await until(() => srv.received.filter((q) => q.method === 'POST').length > before, 'the POST');
    run.child.kill('SIGTERM');
    const r = await run.done;
    expect(r.code).toBe(143);
    expect(r.stderr).toContain('may have reached the service');
  });
});
