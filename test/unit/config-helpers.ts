// Shared by the config*.test.ts files: a temp config folder and a Context
// that handlers of the local commands can run with.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import type { Context, Globals } from '../../src/contract/context.js';

export async function makeTempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'backupctl-config-'));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

export async function writeConfig(dir: string, content: unknown): Promise<string> {
  const file = join(dir, 'config.json');
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content), { mode: 0o600 });
  return file;
}

export interface FakeContext extends Context {
  stdoutText(): string;
  stderrText(): string;
  warnings: string[];
}

export function fakeContext(opts: {
  configDir: string;
  env?: NodeJS.ProcessEnv;
  globals?: Globals;
  stdin?: string;
  stdinIsTTY?: boolean;
}): FakeContext {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += String(c)));
  stderr.on('data', (c) => (err += String(c)));
  const warnings: string[] = [];
  return {
    globals: { configDir: opts.configDir, ...opts.globals },
    io: {
      stdout,
      stderr,
      stdin: Readable.from(opts.stdin === undefined ? [] : [Buffer.from(opts.stdin)]),
      stdoutIsTTY: false,
      stderrIsTTY: false,
      stdinIsTTY: opts.stdinIsTTY ?? false,
      columns: 80,
    },
    env: opts.env ?? {},
    output: { format: 'json', quiet: false, noHeaders: false, color: false, pretty: false },
    settings: async () => {
      throw new Error('not used by the local commands');
    },
    client: async () => {
      throw new Error('not used by the local commands');
    },
    confirm: async () => true,
    signal: new AbortController().signal,
    spinner: () => ({ update() {}, stop() {} }),
    warn: (message) => void warnings.push(message),
    note: (message) => void stderr.write(`${message}\n`),
    stdoutText: () => out,
    stderrText: () => err,
    warnings,
  };
}
