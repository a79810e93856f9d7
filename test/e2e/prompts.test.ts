// The confirmation and the hidden token prompt in a real pseudo-terminal
// (util-linux `script` gives the CLI a pty on stdin and stdout).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { inPty as runInPty } from '../helpers/pty.js';
import { emulatorSession, startTestEmulator } from '../helpers/emulator.js';
import type { Emulator } from '../../src/emulator/index.js';

// A config folder (and a state folder) of their own for each test.
const session = emulatorSession({ seed: 'demo', foldersPerTest: true });
const { emu } = session;
const inPty = (args: string[], keys: string, env: Record<string, string>, stty?: string) => runInPty(args, env, { keys, stty });

beforeEach(() => {
  emu.requests.length = 0;
});

describe('in a terminal', () => {
  const env = () => ({ BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: emu.token, BACKUPCTL_CONFIG_DIR: session.cfg.dir });

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
    const r = await inPty(['auth', 'login', '--base-url', emu.url], `${emu.token}\r`, { BACKUPCTL_CONFIG_DIR: session.cfg.dir });
    expect(r.code).toBe(0);
    expect(r.output).not.toContain(emu.token);
    const t = await runCli(['auth', 'token'], { env: { BACKUPCTL_CONFIG_DIR: session.cfg.dir } });
    expect(t.stdout).toBe(`${emu.token}\n`);
  });
});

describe('the spinner', () => {
  // A slow answer, so that the spinner runs (it starts once ora has loaded).
  let slow: Emulator;
  beforeAll(async () => {
    slow = await startTestEmulator({ seed: 'demo', latencyMs: 1200 });
  });
  afterAll(async () => {
    await slow.close();
  });
  const env = () => ({ BACKUPCTL_BASE_URL: slow.url, BACKUPCTL_TOKEN: slow.token, BACKUPCTL_CONFIG_DIR: session.cfg.dir });

  it('spins on stderr in a terminal while a list loads, and clears its line', async () => {
    const r = await inPty(['servers', 'list', '-q'], '', env(), 'cols 100 rows 30');
    expect(r.code).toBe(0);
    expect(r.output).toContain('Loading');
    // The spinner's line is cleared, then the ids follow on clean lines.
    expect(r.output).toMatch(/\u001b\[0K(\u001b\[\?25h)?1\r\n2\r\n3\r\n/);
  });

  it('stays off in a terminal that reports zero columns (ora would clear lines for ever)', async () => {
    const r = await inPty(['servers', 'list', '-q'], '', env(), 'cols 0 rows 0');
    expect(r.code).toBe(0);
    expect(r.output).not.toContain('Loading');
    expect(r.output).not.toContain('\u001b[1A');
    expect(r.output.length).toBeLessThan(2000);
  });
});

describe('apply in a terminal', () => {
  const env = () => ({ BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: emu.token, BACKUPCTL_CONFIG_DIR: session.cfg.dir });

  it('shows the plan and asks; "n" changes nothing, "y" applies', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-apply-pty-'));
    const file = path.join(dir, 'b.yaml');
    writeFileSync(file, 'version: 1\nstorage:\n  pty bucket:\n    provider: cloud_m\n    region: eu\n    bucket: pty\n');
    try {
      const no = await inPty(['apply', '-f', file], 'n\r', env());
      // On a terminal the mark is coloured.
      expect(no.output).toContain('\u001b[32m+  \u001b[39m storage "pty bucket"');
      expect(no.output).toContain('Apply these changes?');
      expect(no.output).toContain('Cancelled; nothing was changed.');
      expect(no.code).toBe(2);
      expect(emu.requests.filter((r) => r.method !== 'GET')).toEqual([]);
      const yes = await inPty(['apply', '-f', file], 'y\r', env());
      expect(yes.output).toContain('Applied: 1 created, 0 updated, 0 replaced, 0 deleted.');
      expect(yes.code).toBe(0);
      expect(emu.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/storage']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
