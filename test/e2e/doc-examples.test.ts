// Every `backupctl ...` example of README.md and docs/*.md, run against the emulator with the demo data
// (issue 25 §14, issue 23 "done when"): an example whose exit code its line does not document fails.
// The convention, also in docs/development.md:
//   - an example is a line of a ```sh / bash / shell / console block (console: only `$ ` lines) that
//     calls backupctl as a command (first on the line after VAR=value words, or after | && || ; $( );
//     a line ending in \ goes on on the next one;
//   - a comment that starts with `exit N` (or `exit N or M`) documents a non-zero exit, else 0 is expected
//     ("exit" later in a comment is prose);
//   - `# not run: <reason>` marks one that cannot run against the emulator: counted, printed, never
//     silently dropped (one without a reason fails);
//   - <job>, <backup-id>/<backup>, <file>, <key>, <server>, <storage> are replaced from the demo data;
//   - blocks of other languages (crontab, yaml, text) are not shell: their backupctl lines are counted.
// Each file gets its own emulator (clock set to the test's start, so the demo reads the same at any hour),
// a config folder whose default profile is logged in to it, and runs its examples in order, through
// `bash -o pipefail` in an empty folder with a `backupctl` on PATH that runs the built CLI.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanEnv, runCli } from '../helpers/cli.js';
import { startTestEmulator } from '../helpers/emulator.js';

const SHELL_LANGS = new Set(['sh', 'bash', 'shell', 'console']);
const FILES = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

export interface Example {
  file: string;
  line: number;
  /** The command as written (continuations joined), without its comment. */
  code: string;
  comment: string;
  /** The exit codes the line documents ([0] when it says none). */
  codes: number[];
  notRun?: string;
}

/** Where the comment of a shell line starts: a `#` outside quotes, at the start or after a blank. */
export function splitComment(line: string): { code: string; comment: string } {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"') i++;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '\\') i++;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return { code: line.slice(0, i).trimEnd(), comment: line.slice(i + 1).trim() };
  }
  return { code: line.trimEnd(), comment: '' };
}

const CALLS_BACKUPCTL = /(?:^|\|\|?|&&|;|\$\()\s*(?:[A-Za-z_]\w*=\S*\s+)*backupctl(?=\s|$)/;
export const callsBackupctl = (code: string): boolean => CALLS_BACKUPCTL.test(code);

/** The examples of one Markdown text, and how many backupctl lines stand in blocks that are not shell. */
export function extractExamples(file: string, text: string): { examples: Example[]; notShell: number } {
  const examples: Example[] = [];
  let notShell = 0;
  let lang: string | undefined;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const fence = /^\s*```\s*([\w-]*)/.exec(raw);
    if (fence) {
      lang = lang === undefined ? fence[1]!.toLowerCase() : undefined;
      continue;
    }
    if (lang === undefined) continue;
    const start = i;
    let line = raw;
    while (/\\\s*$/.test(splitComment(line).code) && i + 1 < lines.length) line = `${splitComment(line).code.replace(/\\\s*$/, '')} ${lines[++i]!.trim()}`;
    if (!SHELL_LANGS.has(lang)) {
      if (callsBackupctl(line.replace(/^\s*(\S+\s+){5}/, '')) || callsBackupctl(line)) notShell++;
      continue;
    }
    if (lang === 'console') {
      if (!/^\s*\$ /.test(line)) continue;
      line = line.replace(/^\s*\$ /, '');
    }
    const { code, comment } = splitComment(line.trim());
    if (!code || !callsBackupctl(code)) continue;
    const notRun = /^not run\b:?\s*(.*)$/i.exec(comment);
    const exit = /^exit (\d+)(?: or (\d+))?\b/.exec(comment);
    examples.push({
      file,
      line: start + 1,
      code,
      comment,
      codes: exit ? [Number(exit[1]), ...(exit[2] ? [Number(exit[2])] : [])] : [0],
      ...(notRun ? { notRun: notRun[1]!.trim() } : {}),
    });
  }
  return { examples, notShell };
}

/** Runs one command line in bash with pipefail; its exit code and output. */
function runLine(code: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-o', 'pipefail', '-c', code], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout = (stdout + d).slice(-4000)));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ code: status, stdout, stderr });
    });
    child.stdin.end();
  });
}

const extracted = FILES.map((file) => ({ file, ...extractExamples(file, readFileSync(path.join(ROOT, file), 'utf8')) }));

describe('the convention', () => {
  it('finds commands, exit codes, "not run" and continuations as docs/development.md says', () => {
    const md = [
      '```sh',
      'backupctl jobs list',
      'BACKUPCTL_PROFILE=x backupctl status --check   # exit 9',
      'echo "$T" | backupctl auth login --with-token   # not run: a real service',
      'npm ci && backupctl --version',
      'npm install -g backupctl',
      'scp dist/sea/backupctl-linux-x64 host:/usr/local/bin/backupctl',
      'backupctl report --jq ".a # b"    # exit 0 or 13',
      'backupctl jobs backup start x --wait   # a failed backup: exit 8',
      'backupctl jobs backup list "shop mysql" \\',
      '  --all',
      '```',
      '```console',
      '$ backupctl jobs get x   # exit 5',
      'error: no job',
      '```',
      '```crontab',
      '15 2 * * * backupctl jobs list',
      '```',
    ].join('\n');
    const { examples, notShell } = extractExamples('x.md', md);
    expect(examples.map((e) => [e.line, e.code, e.codes, e.notRun])).toEqual([
      [2, 'backupctl jobs list', [0], undefined],
      [3, 'BACKUPCTL_PROFILE=x backupctl status --check', [9], undefined],
      [4, 'echo "$T" | backupctl auth login --with-token', [0], 'a real service'],
      [5, 'npm ci && backupctl --version', [0], undefined],
      [8, 'backupctl report --jq ".a # b"', [0, 13], undefined],
      [9, 'backupctl jobs backup start x --wait', [0], undefined],
      [10, 'backupctl jobs backup list "shop mysql"  --all', [0], undefined],
      [14, 'backupctl jobs get x', [5], undefined],
    ]);
    expect(notShell).toBe(1);
  });
});

describe('every backupctl example of README.md and docs/*.md', () => {
  it('the README has its everyday commands, and each "not run" says why', () => {
    const readme = extracted.find((e) => e.file === 'README.md')!;
    expect(readme.examples.filter((e) => !e.notRun).length).toBeGreaterThanOrEqual(10);
    const all = extracted.flatMap((e) => e.examples);
    for (const e of all.filter((x) => x.notRun !== undefined)) expect(e.notRun, `${e.file}:${e.line} "# not run:" needs a reason`).not.toBe('');
    const run = all.filter((e) => e.notRun === undefined).length;
    const notRun = all.filter((e) => e.notRun !== undefined);
    const notShell = extracted.reduce((n, e) => n + e.notShell, 0);
    console.info(
      `doc-examples: ${all.length} examples in ${FILES.length} files: ${run} run, ${notRun.length} not run, ` +
        `and ${notShell} backupctl lines in blocks that are not shell (crontab, yaml, text)\n` +
        notRun.map((e) => `  not run: ${e.file}:${e.line} ${e.code}  (${e.notRun})`).join('\n'),
    );
  });

  describe.concurrent.each(extracted.filter((e) => e.examples.some((x) => !x.notRun)))('$file', ({ file, examples }) => {
    it('each example exits as documented', async () => {
      const emu = await startTestEmulator({ now: Date.now(), badNight: true });
      const work = mkdtempSync(path.join(tmpdir(), 'backupctl-doc-examples-'));
      try {
        const dirs = Object.fromEntries(['config', 'state', 'cache', 'home', 'bin', 'cwd'].map((d) => [d, path.join(work, d)]));
        for (const d of Object.values(dirs)) mkdirSync(d, { mode: 0o700 });
        writeFileSync(path.join(dirs.bin!, 'backupctl'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
        chmodSync(path.join(dirs.bin!, 'backupctl'), 0o755);
        const env = cleanEnv({
          PATH: `${dirs.bin}:${process.env.PATH}`,
          HOME: dirs.home,
          BACKUPCTL_CONFIG_DIR: dirs.config,
          XDG_STATE_HOME: dirs.state,
          XDG_CACHE_HOME: dirs.cache,
          TOKEN: emu.token,
        });
        const cli = async (args: string[], input?: string) => {
          const r = await runCli(args, { env, input, timeoutMs: 60_000 });
          expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
          return r.stdout;
        };
        await cli(['auth', 'login', '--base-url', emu.url, '--with-token'], `${emu.token}\n`);
        const backup = JSON.parse(await cli(['jobs', 'backup', 'latest', 'shop mysql', '--status', 'completed', '--json'])) as { id: string; files: Array<{ name: string }> };
        const firstId = async (args: string[]) => String((JSON.parse(await cli([...args, '--json'])) as Array<{ id: unknown }>)[0]!.id);
        const values: Record<string, string> = {
          job: '"shop mysql"',
          'backup-id': backup.id,
          backup: backup.id,
          file: backup.files[0]!.name,
          key: await firstId(['ssh-keys', 'list']),
          server: await firstId(['servers', 'list']),
          storage: await firstId(['storage', 'list']),
          // The demo-only key pair the emulator seals its encrypted backups with (docs/verify.md "Encrypted backups").
          'demo-key': path.join(ROOT, 'src/emulator/fixtures/demo-key/demo-private.pem'),
        };

        const failures: string[] = [];
        for (const e of examples) {
          if (e.notRun !== undefined) continue;
          const code = e.code.replace(/<([a-z][\w-]*)>/g, (whole, name: string) => values[name] ?? whole);
          const left = /<[a-z][\w-]*>/.exec(code);
          if (left) {
            failures.push(`${file}:${e.line}: unknown placeholder ${left[0]} in: ${e.code}`);
            continue;
          }
          const r = await runLine(code, dirs.cwd!, env);
          if (r.code === null || !e.codes.includes(r.code)) {
            failures.push(
              `${file}:${e.line}: exit ${r.code}, documented ${e.codes.join(' or ')}: ${code}\n    ${r.stderr.trim().split('\n').slice(-4).join('\n    ')}`,
            );
          }
        }
        expect(failures, failures.join('\n')).toEqual([]);
      } finally {
        await emu.close();
        rmSync(work, { recursive: true, force: true });
      }
    }, 600_000);
  });
});
