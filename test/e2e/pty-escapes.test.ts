// Terminal rules on a real pseudo-terminal (util-linux `script`): TERM=dumb gets
// no escape code at all (no colour, no spinner), NO_COLOR takes the colour out
// of the spinner as well as the table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { BIN, cleanEnv, tempConfigDir } from '../helpers/cli.js';
import { startTestEmulator } from '../helpers/emulator.js';
import type { Emulator } from '../../src/emulator/index.js';

let emu: Emulator;
let cfg: ReturnType<typeof tempConfigDir>;

/** Runs the CLI with stdin, stdout and stderr on one pty; everything it wrote. */
function inPty(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const cmd = `stty cols 120 rows 40; exec ${[process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')}`;
    const child = spawn('script', ['-qec', cmd, '/dev/null'], { env: cleanEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    const onData = (d: Buffer) => {
      output += d.toString('utf8');
      if (output.length > 1_000_000) child.kill('SIGKILL');
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

const ESC = '\u001b';
const SGR = /\u001b\[[0-9;]*m/;

beforeAll(async () => {
  // Slow answers, so the spinner is up long enough to draw frames.
  emu = await startTestEmulator({ seed: 'demo', latencyMs: 700 });
  cfg = tempConfigDir();
});
afterAll(async () => {
  await emu.close();
  cfg.cleanup();
});

describe('on a terminal', () => {
  const env = (extra: Record<string, string>) => ({ BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: emu.token, BACKUPCTL_CONFIG_DIR: cfg.dir, ...extra });

  it('an ordinary terminal gets colour and an animated spinner (the check below can see them)', async () => {
    const r = await inPty(['status'], env({ TERM: 'xterm-256color' }));
    expect(r.code).toBe(0);
    expect(r.output).toMatch(SGR);
    expect(r.output).toContain(`${ESC}[?25l`); // the spinner hides the cursor
  }, 30_000);

  it('--all-profiles on a slow service: one spinner counts the profiles (each run draws into its buffer, not the terminal)', async () => {
    const login = spawn(process.execPath, [BIN, 'auth', 'login', '--profile', 'slow', '--base-url', emu.url, '--with-token'], { env: cleanEnv({ BACKUPCTL_CONFIG_DIR: cfg.dir }) });
    login.stdin.end(`${emu.token}\n`);
    await new Promise((resolve) => login.on('close', resolve));
    const r = await inPty(['status', '--all-profiles', '-o', 'table'], { BACKUPCTL_CONFIG_DIR: cfg.dir, TERM: 'xterm-256color' });
    expect(r.code, r.output.slice(-500)).toBe(0);
    expect(r.output).toContain(`${ESC}[?25l`);
    expect(r.output).toContain('Reading 1 profile: 0 done');
    expect(r.output).toMatch(/^slow\s/m);
  }, 60_000);

  it('TERM=dumb: no escape code at all, and the same rows', async () => {
    for (const args of [['status'], ['servers', 'list'], ['jobs', 'list']]) {
      const r = await inPty(args, env({ TERM: 'dumb' }));
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.output.length).toBeGreaterThan(100);
      expect(r.output.includes(ESC), `${args.join(' ')}: ${JSON.stringify(r.output.slice(0, 300))}`).toBe(false);
    }
  }, 60_000);

  it('TERM=dumb with NO_COLOR: no escape code at all', async () => {
    const r = await inPty(['status'], env({ TERM: 'dumb', NO_COLOR: '1' }));
    expect(r.code).toBe(0);
    expect(r.output.includes(ESC)).toBe(false);
  }, 30_000);

  it('NO_COLOR=1: the spinner still turns, without colour; the table has none either', async () => {
    const r = await inPty(['status'], env({ TERM: 'xterm-256color', NO_COLOR: '1' }));
    expect(r.code).toBe(0);
    expect(r.output).toContain(`${ESC}[?25l`);
    expect(r.output).not.toMatch(SGR);
  }, 30_000);

  it('FORCE_COLOR=1 brings colour back for TERM=dumb, still without a spinner', async () => {
    const r = await inPty(['status'], env({ TERM: 'dumb', FORCE_COLOR: '1' }));
    expect(r.code).toBe(0);
    expect(r.output).toMatch(SGR);
    expect(r.output).not.toContain(`${ESC}[?25l`);
  }, 30_000);
});
