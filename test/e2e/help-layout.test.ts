// Help that reads like gh's (issue 13 part 3): a command's own commands and
// options first, the global ones behind `backupctl help options`, one
// capitalisation, help on stdout for a bare group, wrapped at the terminal's width.
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { runCli } from '../helpers/cli.js';
import { withEmulatorCli } from '../helpers/emulator.js';
import { builtManifest } from '../helpers/manifest.js';
import { inPty, screenLines } from '../helpers/pty.js';
import { declaredProgram } from '../../src/cli/manifest.js';
import { wrapExample } from '../../src/cli/help.js';

function everyCommand(cmd: Command): Command[] {
  return [cmd, ...cmd.commands.flatMap(everyCommand)];
}

describe('help layout', () => {
  it('a group lists its commands first, then its options and examples, then one pointer to the global options', async () => {
    const r = await runCli(['jobs', '--help']);
    expect(r.code).toBe(0);
    const headings = r.stdout.split('\n').filter((l) => /^\S.*:$/.test(l));
    // Examples of the group's commands (issue 17 part 7), before the pointer as on a command's help.
    expect(headings).toEqual(['Commands:', 'Options:', 'Examples:', 'Global options (details: backupctl help options):']);
    expect(r.stdout).not.toContain('--profile <name>');
    expect(r.stdout).toMatch(/^ {2}.*--profile, --base-url, -o\/--output, --json/m);
    expect(r.stdout).not.toMatch(/^ {2}help /m);
  });

  it('a command shows its arguments and options, endpoint and examples before the pointer', async () => {
    const r = await runCli(['jobs', 'backup', 'list', '--help']);
    const headings = r.stdout.split('\n').filter((l) => /^\S.*:( .*)?$/.test(l) && !l.startsWith('Usage:'));
    expect(headings).toEqual(['Arguments:', 'Options:', 'Endpoint: GET /v1/jobs/{job_id}/backups', 'Examples:', 'Global options (details: backupctl help options):']);
  });

  it('backupctl help options lists every global option with its description', async () => {
    const r = await runCli(['help', 'options']);
    expect(r.code).toBe(0);
    for (const flag of ['--profile <name>', '-o, --output <format>', '--jq <expr>', '--dry-run', '-y, --yes', '--config-dir <dir>']) {
      expect(r.stdout).toContain(flag);
    }
  });

  it('bare backupctl and a bare group print their help on stdout and exit 0', async () => {
    for (const args of [[], ['jobs'], ['jobs', 'backup'], ['droplets', 'snapshot']]) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(/^Usage: backupctl/);
      expect(r.stdout).toContain('Commands:');
    }
    const wrong = await runCli(['jobs', 'lsit']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("unknown command 'lsit'");
  });

  it('every description starts with a capital letter, the same everywhere', () => {
    const program = declaredProgram(builtManifest());
    const help = program.createHelp();
    const lower: string[] = [];
    for (const cmd of everyCommand(program).filter((c) => !(c as unknown as { _hidden: boolean })._hidden)) {
      const where = cmd.name();
      for (const o of help.visibleOptions(cmd)) if (/^[a-z]/.test(o.description)) lower.push(`${where} ${o.flags}: ${o.description}`);
      for (const a of help.visibleArguments(cmd)) if (/^[a-z]/.test(a.description)) lower.push(`${where} <${a.name()}>: ${a.description}`);
      for (const c of help.visibleCommands(cmd)) if (/^[a-z]/.test(help.subcommandDescription(c))) lower.push(`${where} ${c.name()}: ${help.subcommandDescription(c)}`);
    }
    expect(lower).toEqual([]);
  });

  it('backupctl version prints the version with Node.js and the platform; --json as an object', async () => {
    const r = await runCli(['version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^backupctl \d+\.\d+\.\d+ \(Node\.js \d+\.\d+\.\d+, [a-z0-9]+-[a-z0-9]+\)\n$/);
    const json = JSON.parse((await runCli(['version', '--json'])).stdout) as Record<string, string>;
    expect(json.version).toBe((await runCli(['--version'])).stdout.trim());
    expect(json.node).toBe(process.versions.node);
  });

  it('help <topic> with a typo suggests the nearest topic or command, exit 2', async () => {
    const topic = await runCli(['help', 'exit-code']);
    expect(topic.code).toBe(2);
    expect(topic.stdout).toBe('');
    expect(topic.stderr).toContain('Did you mean: backupctl help exit-codes');
    const command = await runCli(['help', 'jbos']);
    expect(command.stderr).toContain('Did you mean: backupctl help jobs');
    const far = await runCli(['help', 'xyzzy-plugh']);
    expect(far.code).toBe(2);
    expect(far.stderr).not.toContain('Did you mean');
  });
});

describe('verbs a user would guess', () => {
  const { env, emu } = withEmulatorCli();

  it('create and add, delete and remove work as one another on every group that has them, and help shows both', async () => {
    const commands = builtManifest().commands;
    const verb = (words: string) => commands.find((c) => c.path.join(' ') === words);
    for (const [words, alias] of [
      ['servers add', 'create'],
      ['storage add', 'create'],
      ['accounts add', 'create'],
      ['ssh-keys create', 'add'],
      ['jobs create', 'add'],
      ['encryption-keys create', 'add'],
      ['jobs delete', 'remove'],
      ['profiles remove', 'delete'],
      ['backups delete', 'remove'],
    ] as const) {
      expect(verb(words)?.aliases, words).toContain(alias);
    }
    const help = await runCli(['ssh-keys', '--help']);
    expect(help.stdout).toMatch(/^ {2}create\|add /m);
    expect(help.stdout).toMatch(/^ {2}delete\|remove /m);

    emu.clearRequests();
    const r = await runCli(['jobs', 'remove', 'shop mysql', '--dry-run'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^curl -X DELETE .*\/v1\/jobs\/[0-9a-f-]{36}/);
    const add = await runCli(['ssh-keys', 'add', '--help']);
    expect(add.stdout).toMatch(/^Usage: backupctl ssh-keys create\|add /);
  });
});

describe('help fits the terminal', () => {
  it('wraps at 60 columns in a pty, and every line fits', async () => {
    for (const args of [['--help'], ['jobs', '--help'], ['emulator', '--help'], ['jobs', 'create', '--help'], ['help', 'options']]) {
      const r = await inPty(args, {}, { stty: 'cols 60 rows 50' });
      expect(r.code, args.join(' ')).toBe(0);
      const lines = screenLines(r.output);
      const wide = lines.filter((l) => l.length > 60);
      expect(wide, args.join(' ')).toEqual([]);
      expect(lines.some((l) => l.length > 50), args.join(' ')).toBe(true);
    }
  });

  it('uses the room of a 200-column terminal', async () => {
    const r = await inPty(['jobs', 'create', '--help'], {}, { stty: 'cols 200 rows 50' });
    const lines = screenLines(r.output);
    expect(lines.filter((l) => l.length > 200)).toEqual([]);
    expect(lines.some((l) => l.length > 100)).toBe(true);
  });

  it('breaks a long example with a shell continuation, never inside quotes', () => {
    const lines = wrapExample('backupctl jobs backup download "shop mysql" --latest --output - | gunzip | mysql shop', 40);
    expect(lines.every((l) => l.length <= 40)).toBe(true);
    expect(lines.slice(0, -1).every((l) => l.endsWith(' \\'))).toBe(true);
    expect(lines.join('\n')).toContain('"shop mysql"');
    expect(lines.map((l) => l.replace(/ \\$/, '').trim()).join(' ')).toBe('$ backupctl jobs backup download "shop mysql" --latest --output - | gunzip | mysql shop');
  });
});
