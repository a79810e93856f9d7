// Help text (issue 17, part 7): every page fits 80 columns in a pipe, the root
// help wraps as the others do, a command whose -o takes more formats says so
// among its options, and every group shows examples of its commands.
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { runCli } from '../helpers/cli.js';
import { builtManifest } from '../helpers/manifest.js';
import { declaredProgram } from '../../src/cli/manifest.js';
import { declareEveryGroup } from '../../src/cli/program.js';

/** Every command of the program, groups and the root included, with its words. */
function everyCommand(cmd: Command, words: string[] = []): Array<{ words: string[]; cmd: Command }> {
  return [{ words, cmd }, ...cmd.commands.flatMap((c) => everyCommand(c, [...words, c.name()]))];
}

function program(): Command {
  const p = declaredProgram(builtManifest());
  declareEveryGroup(p);
  return p;
}

const visible = builtManifest().commands.filter((c) => !c.hidden);
const isCommand = (words: string[]) => visible.some((c) => c.path.join(' ') === words.join(' '));

describe('help text', () => {
  it('no line of any help page (root, groups, commands) runs past 80 columns', () => {
    const long: string[] = [];
    const pages = everyCommand(program()).filter(({ cmd }) => !(cmd as unknown as { _hidden: boolean })._hidden);
    expect(pages.length).toBeGreaterThan(visible.length);
    for (const { words, cmd } of pages) {
      for (const line of cmd.helpInformation().split('\n')) if (line.length > 80) long.push(`${words.join(' ') || '(root)'}: ${line}`);
    }
    expect(long).toEqual([]);
  });

  it('in a pipe, the root help wraps at 80 as subcommand help does; storage add and emulator too', async () => {
    for (const args of [['--help'], ['storage', 'add', '--help'], ['emulator', '--help'], []]) {
      const r = await runCli(args, { env: { COLUMNS: undefined } });
      expect(r.code, args.join(' ')).toBe(0);
      const lines = r.stdout.split('\n');
      expect(lines.filter((l) => l.length > 80), args.join(' ')).toEqual([]);
      // Wrapped, not cut: some description goes on under its term.
      expect(lines.some((l) => /^ {20,}\S/.test(l)), args.join(' ')).toBe(true);
    }
  });

  it('a command whose -o takes more formats lists -o among its options with all of them', async () => {
    const withMore = visible.filter((c) => c.extraFormats?.some((f) => f !== '-'));
    expect(withMore.map((c) => c.path.join(' '))).toEqual(expect.arrayContaining(['status', 'verify', 'report']));
    for (const c of withMore) {
      const r = await runCli([...c.path, '--help']);
      const options = r.stdout.slice(r.stdout.indexOf('\nOptions:\n'), r.stdout.indexOf('\n\n', r.stdout.indexOf('\nOptions:\n') + 1));
      const line = options.replace(/\n {10,}/g, ' ');
      expect(line, c.path.join(' ')).toMatch(new RegExp(`-o, --output <format> +Table, json, ndjson, tsv(, | or )${c.extraFormats!.join('(, | or )')} `));
    }
    const status = await runCli(['status', '--help']);
    expect(status.stdout).toMatch(/^ {2}-o, --output <format> +Table, json, ndjson, tsv or prometheus/m);
  });

  it('every group shows examples of its own commands, and --help of a bare group the same', async () => {
    const groups = everyCommand(program()).filter(({ words, cmd }) => words.length && cmd.commands.length && !isCommand(words));
    expect(groups.map(({ words }) => words.join(' '))).toEqual(expect.arrayContaining(['jobs', 'jobs backup', 'servers', 'droplets snapshot']));
    for (const { words, cmd } of groups) {
      const help = cmd.helpInformation();
      const at = help.indexOf('\nExamples:\n');
      expect(at, words.join(' ')).toBeGreaterThan(0);
      const examples = help
        .slice(at + '\nExamples:\n'.length, help.indexOf('\n\n', at + 1))
        .replace(/ \\\n {6}/g, ' ')
        .split('\n');
      expect(examples.length, words.join(' ')).toBeGreaterThanOrEqual(1);
      expect(examples.length, words.join(' ')).toBeLessThanOrEqual(4);
      const own = visible.filter((c) => words.every((w, i) => c.path[i] === w)).flatMap((c) => c.examples ?? []);
      for (const e of examples) {
        expect(e, words.join(' ')).toMatch(new RegExp(`^ {2}\\$ backupctl ${words.join(' ')} `));
        expect(own, words.join(' ')).toContain(e.replace(/^ {2}\$ /, ''));
      }
    }
    const bare = await runCli(['jobs', 'backup']);
    expect(bare.stdout).toBe((await runCli(['jobs', 'backup', '--help'])).stdout);
    expect(bare.stdout).toContain('Examples:\n  $ backupctl jobs backup start ');
  });
});

describe('help topics', () => {
  /** A crontab line or a `backupctl ...` line to copy: kept on one line, as a crontab needs it. */
  const command = /^ {2}(?:(?:\S+ ){5}(?:[A-Z_]+=\S+ )*)?backupctl /;

  it('wrap at 80 in a pipe and at $COLUMNS, items under their column, nothing lost; only commands to copy stay whole', async () => {
    const { helpTopics } = await import('../../src/cli/help-topics.js');
    for (const [topic, { text }] of Object.entries(helpTopics)) {
      for (const columns of [undefined, '60']) {
        const width = Number(columns ?? 80);
        const r = await runCli(['help', topic], { env: { COLUMNS: columns } });
        expect(r.code, topic).toBe(0);
        const long = r.stdout.split('\n').filter((l) => l.length > width && !command.test(l));
        expect(long, `${topic} at ${width}`).toEqual([]);
        expect(r.stdout.split(/\s+/).filter(Boolean), `${topic} at ${width}`).toEqual(text.split(/\s+/).filter(Boolean));
      }
    }
    const env = await runCli(['help', 'environment'], { env: { COLUMNS: undefined } });
    expect(env.stdout).toMatch(/^ {2}BACKUPCTL_BASE_URL {4}service address, e\.g\. https:\/\/api\.example\.com \(as\n {24}--base-url\); \/v1 is added\./m);
    expect(env.stdout).toMatch(/^ {2}BACKUPCTL_COMPLETION_TIMEOUT\n {24}how long TAB waits/m);
    const codes = await runCli(['help', 'exit-codes'], { env: { COLUMNS: undefined } });
    expect(codes.stdout).toMatch(/^ {2}9 {4}a check found nothing: .*\n {7}\S/m);
    const cron = await runCli(['help', 'cron'], { env: { COLUMNS: undefined } });
    expect(cron.stdout).toMatch(/^ {2}15 2 \* \* \* BACKUPCTL_PROFILE=prod backupctl jobs backup start <job> --daily .* 2>&1$/m);
    expect(cron.stdout).toMatch(/^ {2}--healthcheck-url <url> reports the run .*\n {26}\S/m);
  });
});
