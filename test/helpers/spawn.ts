// The built CLI as a running process the test can watch and signal (Ctrl-C
// tests): runCli() in ./cli.ts waits for the end, this hands back the child.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { BIN, cleanEnv, type CliResult } from './cli.js';

export interface RunningCli {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout holds something matching `test`. */
  waitForStdout(test: (text: string) => boolean, timeoutMs?: number): Promise<void>;
  /** The exit, with everything printed. */
  done: Promise<CliResult>;
}

export function startCli(args: string[], env: Record<string, string | undefined>, killAfterMs = 30_000): RunningCli {
  const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const watchers = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    for (const w of watchers) w();
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdin.on('error', () => {});
  child.stdin.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: out, stderr: err });
    });
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    done,
    waitForStdout(test, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!test(out)) return;
          watchers.delete(check);
          clearTimeout(t);
          resolve();
        };
        const t = setTimeout(() => {
          watchers.delete(check);
          reject(new Error(`stdout never matched; stdout: ${out.slice(0, 500)} stderr: ${err.slice(0, 500)}`));
        }, timeoutMs);
        watchers.add(check);
        check();
        void done.then(() => {
          if (watchers.has(check)) {
            watchers.delete(check);
            clearTimeout(t);
            reject(new Error(`the CLI ended before stdout matched; stdout: ${out.slice(0, 500)} stderr: ${err.slice(0, 500)}`));
          }
        });
      });
    },
  };
}

/** Polls `check` every 10 ms until it holds (bounded). */
export async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition never held');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * The direct children of a process (Linux: /proc/<pid>/task/<tid>/children of each of its threads), what
 * `pgrep -P <pid>` prints, without a pgrep process per call (tests poll this every few milliseconds).
 */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out; // gone
  }
  for (const t of tasks) {
    try {
      for (const c of readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').split(' ')) if (c.trim()) out.push(Number(c));
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}
