// Runs the BUILT CLI (bin/backupctl.cjs -> dist/) as a subprocess, the way a
// user or a script does, and collects the bytes and the exit code.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(ROOT, 'bin', 'backupctl.cjs');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout as bytes (a file streamed with --output -). */
  stdoutBytes?: Buffer;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  /** Text on standard input (stdin is a pipe, so never a TTY). */
  input?: string;
  timeoutMs?: number;
  /** Working folder of the CLI (default: the test's). */
  cwd?: string;
}

/**
 * An environment without the caller's BACKUPCTL_*, proxy, colour or CA settings.
 * (A machine-wide NODE_EXTRA_CA_CERTS makes every node process parse a PEM bundle
 * before it starts, ~40 ms per CLI run here; the tests that need one set it.)
 */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  // The state folder (verify's ledger, restore tests, run locks) is the test file's own unless a
  // test names one: a ledger left in the user's home by one test must not change another's verdicts.
  const env: NodeJS.ProcessEnv = { XDG_STATE_HOME: testStateHome() };
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(BACKUPCTL_|NO_COLOR|FORCE_COLOR|HTTPS?_PROXY|NO_PROXY|XDG_CONFIG_HOME|XDG_STATE_HOME|NODE_EXTRA_CA_CERTS$)/i.test(k)) continue;
    env[k] = v;
  }
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

let stateHome: string | undefined;
/** One state folder per test file, removed after the file's tests (below). */
function testStateHome(): string {
  stateHome ??= mkdtempSync(path.join(tmpdir(), 'backupctl-state-'));
  return stateHome;
}
// Registered while the test file that imports this helper is collected: runs after its tests.
// (Waiting for the process's `exit` left one folder per file: vitest's workers are reused, and
// a worker that is ended never fires it; a full run left about 60.)
afterAll(() => {
  if (stateHome) rmSync(stateHome, { recursive: true, force: true });
  stateHome = undefined;
});

export function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  return runProgram(process.execPath, [BIN, ...args], { ...opts, env: cleanEnv(opts.env) });
}

/**
 * Runs any program to its end (the installed or single-executable CLI, npm)
 * with exactly the environment given; stdin gets `input`, then ends.
 */
export function runProgram(
  cmd: string,
  args: string[],
  opts: { env: NodeJS.ProcessEnv; cwd?: string; input?: string; timeoutMs?: number },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stdoutBytes = Buffer.concat(out);
      resolve({ code, signal, stdout: stdoutBytes.toString('utf8'), stderr, stdoutBytes });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? '');
  });
}

/** A fresh config folder per test; removed by the returned cleanup. */
export function tempConfigDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'backupctl-test-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
