// The confirmation and the hidden token prompt in a real pseudo-terminal
// (util-linux `script` gives the CLI a pty on stdin and stdout).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { BIN, cleanEnv, runCli, tempConfigDir } from '../helpers/cli.js';
import { startTestEmulator } from '../helpers/emulator.js';
import type { Emulator } from '../../src/emulator/index.js';

let emu: Emulator;
let cfg: ReturnType<typeof tempConfigDir>;

/** Runs the CLI under `script`, typing `keys` once the prompt has appeared. */
function inPty(args: string[], keys: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const cmd = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const child = spawn('script', ['-qec', cmd, '/dev/null'], { env: cleanEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    let typed = false;
    const onData = (d: Buffer) => {
      output += d.toString('utf8');
      if (!typed && /\?/.test(output)) {
        typed = true;
        setTimeout(() => child.stdin.write(keys), 150);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

beforeAll(async () => {
  emu = await startTestEmulator({ seed: 'demo' });
});
afterAll(async () => {
  await emu.close();
});
beforeEach(() => {
  cfg?.cleanup();
  cfg = tempConfigDir();
  emu.requests.length = 0;
});

describe('in a terminal', () => {
  const env = () => ({ BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: emu.token, BACKUPCTL_CONFIG_DIR: cfg.dir });

  it('asks before deleting; "y" deletes', async () => {
    const key = await runCli(['ssh-keys', 'create', '--name', 'pty-key', '-q'], { env: env() });
    const id = key.stdout.trim();
    emu.requests.length = 0;
    const r = await inPty(['ssh-keys', 'delete', id], 'y\r', env());
    expect(r.output).toContain(`Delete SSH key ${id}?`);
    expect(r.code).toBe(0);
    expect(emu.requests.filter((q) => q.method === 'DELETE')).toHaveLength(1);
  });

  it('asks before deleting; "n" sends nothing and exits 2', async () => {
    const r = await inPty(['ssh-keys', 'delete', '1'], 'n\r', env());
    expect(r.code).toBe(2);
    expect(r.output).toContain('Cancelled; nothing was sent.');
    expect(emu.requests.filter((q) => q.path.startsWith('/v1'))).toHaveLength(0);
  });

  it('auth login asks for the token without echoing it', async () => {
    const r = await inPty(['auth', 'login', '--base-url', emu.url], `${emu.token}\r`, { BACKUPCTL_CONFIG_DIR: cfg.dir });
    expect(r.code).toBe(0);
    expect(r.output).not.toContain(emu.token);
    const t = await runCli(['auth', 'token'], { env: { BACKUPCTL_CONFIG_DIR: cfg.dir } });
    expect(t.stdout).toBe(`${emu.token}\n`);
  });
});
