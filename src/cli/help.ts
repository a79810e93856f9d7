// Help laid out as gh lays it out: a command's own arguments, commands and
// options first, the options every command takes behind one pointer line
// (`backupctl help options`), examples last; everything wrapped at the
// terminal's width (80 in a pipe). Loaded at start-up with the program, so it
// imports nothing but commander and the small line filler.
import { Command, Help, type Option } from 'commander';
import { wrapParts } from '../util/wrap.js';

const INDENT = 2;
const GAP = 2;
/** Narrower than this, a term's description starts on the line below it. */
const MIN_DESCRIPTION = 24;

/** What a command's help shows after its options: the endpoint, examples, a closing line. */
export interface HelpExtras {
  endpoint?: string;
  examples?: readonly string[];
  footer?: string;
  /** Global options that mean more for this command, shown among its own (status: -o prometheus). */
  options?: ReadonlyArray<readonly [string, string]>;
}

const extras = new WeakMap<Command, HelpExtras>();

export function setHelpExtras(cmd: Command, value: HelpExtras): void {
  extras.set(cmd, value);
}

/**
 * What non-root help ends with in place of the 15 options every command
 * takes, each with its description: their flags in a few lines, and where
 * the descriptions are.
 */
function globalOptionsPointer(cmd: Command, width: number): string[] {
  let root = cmd;
  while (root.parent) root = root.parent;
  const flags = root.options
    .filter((o) => !o.hidden && o.long !== '--version' && o.long !== '--help')
    .map((o) => (o.short ? `${o.short}/${o.long}` : o.long!));
  return ['Global options (details: backupctl help options):', ...wrapText(flags.join(', '), width - INDENT).map((l) => ' '.repeat(INDENT) + l)];
}

/**
 * Words of `text` in lines of at most `width` cells, keeping its line breaks;
 * a word longer than a line is cut across lines (a terminal would wrap it anyway, badly).
 */
export function wrapText(text: string, width: number): string[] {
  return text.split('\n').flatMap((raw) => {
    const words = raw.split(/\s+/).filter(Boolean).flatMap((word) => {
      const pieces: string[] = [];
      for (let rest = word; rest; rest = rest.slice(width)) pieces.push(rest.slice(0, width));
      return pieces;
    });
    const lines = wrapParts(words.map((w) => ({ plain: w, shown: w })), width);
    return lines.length ? lines : [''];
  });
}

/**
 * An example command in lines of at most `width` cells, broken at spaces with
 * a shell continuation (` \`), so it stays one command when pasted
 * (runs of spaces before a `# comment` become one).
 */
export function wrapExample(example: string, width: number): string[] {
  const prefix = '  $ ';
  const more = '      ';
  if (prefix.length + example.length <= width) return [prefix + example];
  // Words, a quoted string counting as part of its word: a break inside quotes would put spaces in it.
  const words = example.match(/(?:[^\s"']+|"[^"]*"|'[^']*')+/g) ?? [example];
  const lines: string[] = [];
  let line = prefix + words.shift()!;
  for (const word of words) {
    // Room for the ' \' that continues the line.
    if (line.length + 1 + word.length <= width - 2) line += ' ' + word;
    else {
      lines.push(line + ' \\');
      line = more + word;
    }
  }
  lines.push(line);
  return lines;
}

/** A command to copy as it is (a crontab line, `backupctl ...`): a shell or crontab needs it on one line. */
const isCommandLine = (line: string): boolean => /^ {2}(?:(?:\S+ ){5}(?:[A-Z_]+=\S+ )*)?backupctl /.test(line);

/** The column where the description of a two-column item (`  term  description`) starts, or -1. */
function itemColumn(line: string, next: string | undefined): number {
  // A description continued on the next line sets the column (a term may be followed by one space only).
  const continued = next === undefined ? -1 : (/^( +)\S/.exec(next)?.[1]!.length ?? -1);
  if (continued > 2 && line.length > continued && line[continued - 1] === ' ' && line[continued] !== ' ' && line.slice(0, continued).trim() !== '') {
    return continued;
  }
  const m = /^( +)(\S.*?)( {2,})\S/.exec(line);
  return m ? m[0].length - 1 : -1;
}

/**
 * A help topic's text (backupctl help environment) at `width`: each
 * two-column item (`  term  description`, the description continued under
 * itself) and each indented block reflowed under its column; a paragraph as
 * written when it fits, else reflowed; commands to copy kept whole.
 */
export function wrapTopic(text: string, width: number): string {
  const lines = text.split('\n');
  const out: string[] = [];
  const indentOf = (line: string) => /^ */.exec(line)![0].length;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '' || isCommandLine(line)) {
      out.push(line);
      continue;
    }
    const item = itemColumn(line, lines[i + 1]);
    const at = item > 0 ? item : indentOf(line);
    if (at > 0) {
      const words = [line.slice(at)];
      while (i + 1 < lines.length && /^ +\S/.test(lines[i + 1]!) && indentOf(lines[i + 1]!) === at && !isCommandLine(lines[i + 1]!)) words.push(lines[++i]!.trim());
      const wrapped = wrapText(words.join(' '), Math.max(MIN_DESCRIPTION, width - at));
      out.push(line.slice(0, at) + wrapped[0], ...wrapped.slice(1).map((l) => ' '.repeat(at) + l));
      continue;
    }
    const paragraph = [line];
    while (i + 1 < lines.length && /^\S/.test(lines[i + 1]!)) paragraph.push(lines[++i]!);
    out.push(...(paragraph.some((l) => l.length > width) ? wrapText(paragraph.join(' '), width) : paragraph));
  }
  return out.join('\n');
}

/** term / description pairs aligned in two columns, as one block of lines. */
export function formatItems(items: ReadonlyArray<readonly [string, string]>, width: number): string[] {
  if (items.length === 0) return [];
  const longest = Math.max(...items.map(([term]) => term.length));
  // The description column starts after the longest term, unless that leaves it too narrow:
  // then it starts at a cap, and longer terms put their description on the next line.
  const cap = Math.max(12, Math.min(width - INDENT - GAP - MIN_DESCRIPTION, Math.floor(width * 0.4)));
  const termWidth = Math.min(longest, cap);
  const column = INDENT + termWidth + GAP;
  const descriptionWidth = Math.max(MIN_DESCRIPTION, width - column);
  const lines: string[] = [];
  for (const [term, description] of items) {
    const wrapped = description ? wrapText(description, descriptionWidth) : [];
    if (term.length > termWidth) {
      lines.push(' '.repeat(INDENT) + term);
      for (const l of wrapped) lines.push(' '.repeat(column) + l);
      continue;
    }
    const first = wrapped.shift() ?? '';
    lines.push((' '.repeat(INDENT) + term.padEnd(termWidth + GAP) + first).trimEnd());
    for (const l of wrapped) lines.push(' '.repeat(column) + l);
  }
  return lines;
}

function section(title: string, items: ReadonlyArray<readonly [string, string]>, width: number): string[] {
  return items.length ? [title, ...formatItems(items, width), ''] : [];
}

export class BackupctlHelp extends Help {
  override formatHelp(cmd: Command, helper: Help): string {
    const width = helper.helpWidth ?? 80;
    const root = !cmd.parent;
    const out = [...wrapText(`Usage: ${helper.commandUsage(cmd)}`, width), ''];
    const description = helper.commandDescription(cmd);
    if (description) out.push(...wrapText(description, width), '');
    out.push(...section('Arguments:', helper.visibleArguments(cmd).map((a) => [helper.argumentTerm(a), helper.argumentDescription(a)] as const), width));
    out.push(...section('Commands:', helper.visibleCommands(cmd).map((c) => [helper.subcommandTerm(c), helper.subcommandDescription(c)] as const), width));
    const options = (list: readonly Option[]) => list.map((o) => [helper.optionTerm(o), helper.optionDescription(o)] as const);
    const more = extras.get(cmd);
    // The root's own options are the ones every command takes; --help stays last.
    const own = options(helper.visibleOptions(cmd));
    const helpLast = own.length && own[own.length - 1]![0].endsWith('--help') ? 1 : 0;
    own.splice(own.length - helpLast, 0, ...(more?.options ?? []));
    out.push(...section(root ? 'Global options:' : 'Options:', own, width));
    if (more?.endpoint) out.push(`Endpoint: ${more.endpoint}`, '');
    if (more?.examples?.length) out.push('Examples:', ...more.examples.flatMap((e) => wrapExample(e, width)), '');
    if (!root) out.push(...globalOptionsPointer(cmd, width), '');
    if (more?.footer) out.push(...wrapText(more.footer, width), '');
    return out.join('\n');
  }
}

/** `backupctl help options`: the options every command takes, at `width`. */
export function globalOptionsHelp(program: Command, width: number): string {
  const helper = program.createHelp();
  const list = helper
    .visibleOptions(program)
    .filter((o) => o.long !== '--version')
    .map((o) => [helper.optionTerm(o), helper.optionDescription(o)] as const);
  return [...wrapText('Global options: every command takes them, before or after its own.', width), '', ...formatItems(list, width), ''].join('\n');
}

/**
 * Commands of backupctl: help from BackupctlHelp, and a bare group (or bare
 * `backupctl`) prints its help on stdout and exits 0 (commander writes it to
 * stderr and exits 1, as for a mistake).
 */
export class BackupctlCommand extends Command {
  override createCommand(name?: string): Command {
    // No `help` subcommand in every group: `backupctl help <words>` and --help cover it.
    return new BackupctlCommand(name).helpCommand(false);
  }

  override createHelp(): Help {
    return Object.assign(new BackupctlHelp(), this.configureHelp());
  }

  override help(context?: { error: boolean } | ((text: string) => string)): never {
    // commander calls help({error: true}) only for a group given no command.
    const bare = typeof context === 'object' && context.error;
    return super.help(bare ? undefined : (context as { error: boolean } | undefined));
  }
}

/** commander's internals used below (not in its types). */
interface CommandInternals {
  args: string[];
  commands: readonly Command[];
  _actionHandler: unknown;
  _outputHelpIfRequested(args: string[]): void;
  unknownCommand(): never;
}

/**
 * commander shows the help for --help before it looks at the command word, so
 * `backupctl restore-tset --help` printed the root help and exited 0: a typo a
 * script never saw. A word that is no command of a group is an unknown command
 * (with the nearest match, exit 2), --help or not, as gh does.
 */
const showHelpIfRequested = (Command.prototype as unknown as CommandInternals)._outputHelpIfRequested;
Object.defineProperty(BackupctlCommand.prototype, '_outputHelpIfRequested', {
  value: function (this: CommandInternals, args: string[]): void {
    const word = this.args[0];
    if (this.commands.length && !this._actionHandler && typeof word === 'string' && !word.startsWith('-')) this.unknownCommand();
    showHelpIfRequested.call(this, args);
  },
});
