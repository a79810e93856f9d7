// Builds the commander program from the manifest: global options, command
// groups, and one command per CommandSpec. Runs at start-up, so it imports
// nothing heavy: handlers, schemas and the HTTP client load when a command runs.
import type { EventEmitter } from 'node:events';
import { type Command, Help, Option } from 'commander';
import { BackupctlCommand, globalOptionsHelp, setHelpExtras, wrapTopic } from './help.js';
import type { CommandSource, ManifestCommand, ParamSpec } from '../contract/spec.js';
import type { Globals, IO } from '../contract/context.js';
import { effectiveParams, flagName } from './params.js';
import { UsageError } from '../errors.js';
import { OUTPUT_FORMATS } from '../output/options.js';

const capitalised = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
/** `a, b or c` */
const orList = (words: readonly string[]): string => (words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}` : (words[0] ?? ''));

export type RunCommand = (
  spec: ManifestCommand,
  positionals: (string | undefined)[],
  options: Record<string, unknown>,
  globals: Globals,
) => Promise<void>;

/** More help topics, made above this floor (src/commands/topics.ts): their names are LATER_TOPICS. */
export type TopicLoader = () => Promise<Record<string, { summary: string; text: string }>>;

export function buildProgram(manifest: CommandSource, io: IO, run: RunCommand, laterTopics?: TopicLoader): Command {
  const program = new BackupctlCommand('backupctl');
  const listedTerms = new WeakMap<Command, string>();
  program
    .description('Operate the backup service from the terminal: servers, keys, snapshots, storage, jobs, backups, restores.')
    .version(manifest.version, '-v, --version', 'Print the version')
    .helpOption('-h, --help', 'Show help for the command')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(withoutOptionValues(s)),
      // Help wraps at the terminal's width; in a pipe at 80 (or $COLUMNS), as man does.
      getOutHelpWidth: () => helpWidth(io.columns),
      getErrHelpWidth: () => helpWidth(io.columns),
      // backupctl's help and messages carry no colour. commander's default asks process.stdout
      // and process.stderr, which makes node build them (a net.Socket for a pipe): a fifth of
      // a `--help` start (docs/startup.md). Without colours commander strips any it finds.
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    .showSuggestionAfterError(true)
    .configureHelp({
      sortSubcommands: false,
      // A word listed before its options are declared (see below) is shown with the term the build recorded.
      subcommandTerm(this: Help, cmd: Command): string {
        return listedTerms.get(cmd) ?? Help.prototype.subcommandTerm.call(this, cmd);
      },
    });
  setHelpExtras(program, {
    examples: ['backupctl auth login --base-url https://api.example.com', 'backupctl jobs list', 'backupctl jobs backup start <job> --manual --wait'],
    footer: 'Exit codes: backupctl help exit-codes. Environment: backupctl help environment.',
  });
  addGlobalOptions(program);
  refuseRepeats(program);

  const nodes = new Map<string, Command>();
  const groupFor = (words: readonly string[]): Command => {
    let parent = program;
    for (let i = 0; i < words.length; i++) {
      const key = words.slice(0, i + 1).join(' ');
      let node = nodes.get(key);
      if (!node) {
        node = parent.command(words[i]!).description(manifest.groups[key] ?? '');
        node.copyInheritedSettings(parent);
        nodes.set(key, node);
      }
      parent = node;
    }
    return parent;
  };

  const declare = (spec: ManifestCommand): void => {
    const parent = groupFor(spec.path.slice(0, -1));
    const name = spec.path[spec.path.length - 1]!;
    const existing = nodes.get(spec.path.join(' '));
    // A command that is also a group (`jobs backup` holds `start`; `droplets snapshot` ...) keeps its node.
    const cmd = existing ?? parent.command(name, { hidden: spec.hidden });
    nodes.set(spec.path.join(' '), cmd);
    if (spec.aliases && !cmd.aliases().length) cmd.aliases([...spec.aliases]);
    cmd.description(spec.summary + (spec.description ? `\n\n${spec.description}` : ''));
    cmd.summary(spec.summary);
    const params = effectiveParams(spec);
    let positionalCount = 0;
    for (const p of params) {
      if (p.positional) {
        positionalCount++;
        cmd.argument(p.required ? `<${flagName(p)}>` : `[${flagName(p)}]`, describe(p));
      } else {
        for (const o of toOptions(p)) cmd.addOption(o);
      }
    }
    setHelpExtras(cmd, {
      endpoint: spec.method && spec.endpoint ? `${spec.method} /v1${spec.endpoint}` : undefined,
      examples: spec.examples,
      // The global -o takes more here: say so where the command's options are.
      options: spec.extraFormats?.length ? [['-o, --output <format>', `${capitalised(orList([...OUTPUT_FORMATS, ...spec.extraFormats]))} (env BACKUPCTL_OUTPUT)`]] : undefined,
    });
    refuseRepeats(cmd);
    cmd.action(async (...args: unknown[]) => {
      const self = args[args.length - 1] as Command;
      const positionals = args.slice(0, positionalCount) as (string | undefined)[];
      // Only what the command line gave: the values check applies the defaults, and tells a given flag from a default.
      const given = Object.fromEntries(Object.entries(self.opts()).filter(([key]) => self.getOptionValueSource(key) !== 'default'));
      await run(spec, positionals, given, self.optsWithGlobals() as Globals);
    });
  };

  // A group's commands are declared when commander is about to enter the group
  // (its preSubcommand hook runs before the group parses anything): a command
  // line names one group, and declaring the other ~80 commands' options was a
  // fifth of the start-up work. The top level lists each group by name and
  // description alone, which is all its help shows.
  const declared = new Set<string>();
  const declareGroup = (top: string): void => {
    if (declared.has(top) || !manifest.tops.includes(top)) return;
    declared.add(top);
    const commands = manifest.commandsOf(top);
    for (const spec of commands) declare(spec);
    // A group (not itself a command) shows examples of its commands.
    for (const [key, node] of nodes) {
      if ((key !== top && !key.startsWith(`${top} `)) || commands.some((c) => c.path.join(' ') === key)) continue;
      const examples = groupExamples(commands, key.split(' '));
      if (examples.length) setHelpExtras(node, { examples });
    }
    const node = nodes.get(top);
    if (node) listedTerms.delete(node);
  };
  for (const top of manifest.tops) {
    if (!manifest.isEager(top)) {
      groupFor([top]);
      continue;
    }
    // A word that is a command itself (status, api, ...): the top-level help shows its
    // arguments and [options]. With the term known it is listed as such and declared on use.
    const term = manifest.termOf?.(top);
    const spec = manifest.wordOf?.(top) ?? manifest.commandsOf(top).find((c) => c.path.length === 1);
    if (term === undefined || !spec) {
      declareGroup(top);
      continue;
    }
    const cmd = program.command(top, { hidden: spec.hidden }).summary(spec.summary);
    if (spec.aliases) cmd.aliases([...spec.aliases]);
    nodes.set(top, cmd);
    listedTerms.set(cmd, term);
  }
  program.hook('preSubcommand', (_program, sub) => declareGroup(sub.name()));
  const declareAll = () => {
    for (const top of manifest.tops) declareGroup(top);
  };
  addHelpCommand(program, nodes, io, declareAll, laterTopics);
  everyGroup.set(program, declareAll);
  return program;
}

/**
 * Examples for the help of the group `words`: the first example of each of
 * its commands and subgroups (a subgroup's first command that has one), in
 * registry order, at most `max`.
 */
export function groupExamples(commands: readonly ManifestCommand[], words: readonly string[], max = 4): string[] {
  const byChild = new Map<string, string>();
  for (const c of commands) {
    if (c.hidden || c.path.length <= words.length || !words.every((w, i) => c.path[i] === w) || !c.examples?.length) continue;
    const child = c.path[words.length]!;
    if (!byChild.has(child)) byChild.set(child, c.examples[0]!);
  }
  return [...byChild.values()].slice(0, max);
}

/** Columns help wraps at: the terminal's, else 80 (a pipe without $COLUMNS). */
function helpWidth(columns: number): number {
  return Number.isFinite(columns) && columns > 0 ? columns : 80;
}

const everyGroup = new WeakMap<Command, () => void>();

/** Declares every group's commands now (the man page reads them all; a command line needs one group). */
export function declareEveryGroup(program: Command): void {
  everyGroup.get(program)?.();
}

/**
 * commander quotes an unknown option as typed, value and all: `--token=<the
 * token>` (a flag that does not exist, by design) would print the token. The
 * value after `=` is cut from its messages; the option's name is enough.
 */
function withoutOptionValues(message: string): string {
  return message.replace(/(option '-{1,2}[^'=\s]+)=[^']*'/g, "$1=…'");
}

/** Options that collect every value given (repeatable flags). */
const collecting = new WeakSet<Option>();

/**
 * A single-valued flag given twice with different values (`--provider cloud_a
 * --provider cloud_b`), or a flag and its --no- form, would let the last one
 * win silently: exit 2 naming them. Checked as commander meets each option,
 * before it stores the value (the one stored so far is the earlier one).
 */
function refuseRepeats(cmd: Command): void {
  for (const option of cmd.options as Option[]) {
    if (collecting.has(option)) continue;
    (cmd as unknown as EventEmitter).prependListener(`option:${option.name()}`, (value: unknown) => {
      const key = option.attributeName();
      if (cmd.getOptionValueSource(key) !== 'cli') return;
      const before = cmd.getOptionValue(key) as unknown;
      const now = option.negate ? false : (value ?? true);
      if (before === now) return;
      const flag = option.long ?? option.short ?? option.name();
      const other = cmd.options.find((o) => o !== option && o.attributeName() === key);
      if (other && (before === false) !== option.negate) {
        throw new UsageError(`${other.long} and ${flag} contradict each other: give one of them`);
      }
      throw new UsageError(`${flag} is given twice with different values: give it once`);
    });
  }
}

/** `help [command...]` also answers topics: `backupctl help exit-codes`. */
function addHelpCommand(program: Command, nodes: Map<string, Command>, io: IO, declareAll: () => void, laterTopics?: TopicLoader): void {
  program.helpCommand(false);
  const help = program
    .command('help')
    .argument('[words...]', 'A command (jobs backup start) or a topic (options, exit-codes, environment, cron, kinds)')
    .description('Show help for a command, or a topic: options, exit-codes, environment, cron, kinds')
    .action(async (words: string[]) => {
      if (!words.length) return void program.outputHelp();
      declareAll();
      const key = words.join(' ');
      const node = nodes.get(key) ?? aliasNode(program, words);
      if (node) return void node.outputHelp();
      if (key === 'options') return void io.stdout.write(globalOptionsHelp(program, helpWidth(io.columns)));
      const { helpTopics, LATER_TOPICS } = await import('./help-topics.js');
      const topic = helpTopics[key] ?? (LATER_TOPICS.includes(key) ? (await laterTopics?.())?.[key] : undefined);
      if (topic) {
        const text = wrapTopic(topic.text, helpWidth(io.columns));
        return void io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
      }
      const { editDistance } = await import('../util/suggest.js');
      const known = ['options', ...Object.keys(helpTopics), ...LATER_TOPICS, ...nodes.keys()];
      const nearest = known
        .map((word) => ({ word, distance: editDistance(key.toLowerCase(), word) }))
        .filter((c) => c.distance <= Math.max(2, Math.floor(c.word.length / 3)))
        .sort((a, b) => a.distance - b.distance)[0];
      throw new UsageError(`no help for "${key}": not a command or a topic`, [
        ...(nearest ? [`Did you mean: backupctl help ${nearest.word}`] : []),
        `Topics: options, ${[...Object.keys(helpTopics), ...LATER_TOPICS].join(', ')}. Commands: backupctl --help.`,
      ]);
    });
  setHelpExtras(help, { examples: ['backupctl help jobs backup start', 'backupctl help options', 'backupctl help exit-codes'] });
}

/** `help jobs backup remove`: the words may name a command by an alias. */
function aliasNode(program: Command, words: readonly string[]): Command | undefined {
  let node: Command | undefined = program;
  for (const word of words) node = node?.commands.find((c) => c.name() === word || c.aliases().includes(word));
  return node;
}

function addGlobalOptions(program: Command): void {
  program
    .option('--profile <name>', 'Config profile to use (env BACKUPCTL_PROFILE)')
    .option('--base-url <url>', 'Service address, e.g. https://api.example.com (env BACKUPCTL_BASE_URL)')
    .addOption(new Option('-o, --output <format>', 'Table, json, ndjson or tsv (env BACKUPCTL_OUTPUT)'))
    .option('--json', 'Same as -o json')
    .option('-q, --quiet', 'Print only ids, one per line')
    .option('--columns <list>', 'Table columns to show, comma-separated')
    .option('--no-headers', 'Omit the header row')
    .option('--no-trunc', 'Tables: whole ids, no cell cut to the terminal')
    .option('--debug', 'HTTP trace on stderr, secrets redacted (env BACKUPCTL_DEBUG=1)')
    .option('--timeout <duration>', 'Per-request timeout, e.g. 30s (env BACKUPCTL_TIMEOUT)')
    .option('--no-color', 'No colour (also NO_COLOR)')
    .option('-y, --yes', 'Do not ask for confirmation')
    .option('--config-dir <dir>', 'Where profiles live (env BACKUPCTL_CONFIG_DIR)')
    .option('--dry-run', 'Print the request as a curl command line and send nothing')
    .option('--jq <expr>', 'Filter the JSON output with a jq expression; strings print raw');
}

function describe(p: ParamSpec): string {
  let d = p.description;
  if ((p.type === 'enum' || p.type === 'sort' || p.type === 'tags') && p.values?.length) {
    const words = p.type === 'enum' && p.aliases ? p.values.map((v) => [v, ...Object.entries(p.aliases!).filter(([, t]) => t === v).map(([a]) => a)].join('|')) : p.values;
    d += ` (${p.type === 'sort' ? 'fields' : 'one of'}: ${words.join(', ')})`;
  }
  if (p.required && !p.positional) d += ' [required]';
  if (p.requiredWhen) {
    d += ` [required for ${Object.entries(p.requiredWhen)
      .map(([k, v]) => `${k.replace(/_/g, '-')} ${v.join('|')}`)
      .join('; ')}]`;
  }
  if (p.repeatable || p.type === 'kv' || p.type === 'storage') d += ' (repeatable)';
  return d;
}

function toOptions(p: ParamSpec): Option[] {
  const flag = flagName(p);
  const short = p.short ? `-${p.short}, ` : '';
  if (p.type === 'boolean') {
    const o = new Option(`${short}--${flag}`, describe(p));
    if (p.hidden) o.hideHelp();
    return [o];
  }
  const placeholder = p.placeholder ?? (p.type === 'enum' ? flag : p.type === 'json-file' || p.type === 'text-file' ? 'file|-' : 'value');
  const o = new Option(`${short}--${flag} <${placeholder}>`, describe(p));
  if (p.default !== undefined) o.default(p.default === false ? undefined : p.default, String(p.default));
  if (p.repeatable || p.type === 'kv' || p.type === 'storage') {
    o.argParser((v: string, prev: unknown) => [...((prev as string[] | undefined) ?? []), v]);
    collecting.add(o);
    o.default(undefined);
  }
  if (p.hidden) o.hideHelp();
  const out = [o];
  if (p.nullable) out.push(new Option(`--no-${flag}`, `Send ${flag} as null (removes it)`));
  return out;
}
