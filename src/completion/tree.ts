// What completes to what: the command tree as the completion scripts see it, read from the
// manifest (the commands, their flags and arguments and the values each takes).
import { declaredProgram } from '../cli/manifest.js';
import type { CompletionSource, Manifest, ManifestCommand, ParamSpec } from '../contract/spec.js';
import { effectiveParams, flagName } from '../cli/params.js';
import { OUTPUT_FORMATS } from '../output/options.js';
import { helpTopics, LATER_TOPICS } from '../cli/help-topics.js';
import { NAMED_KINDS } from '../cli/resolve.js';

export /** What the scripts ask `__complete` for: a named resource the service lists, or another source (src/contract/spec.ts). */
type IdResource = CompletionSource;

/** The tag names a `tags` flag takes when its spec lists none (as src/cli/values.ts assumes). */
const DEFAULT_TAGS = ['manual', 'hourly', 'daily', 'weekly', 'monthly'];

/** What a flag's value or a positional argument completes to. */
export type Values =
  | { kind: 'words'; words: string[] }
  /** Comma-separated list of these words (tags). */
  | { kind: 'list'; words: string[] }
  | { kind: 'files' }
  | { kind: 'dirs' }
  | { kind: 'ids'; resource: IdResource }
  /** Takes a value, but there is nothing to offer. */
  | { kind: 'none' };

export interface FlagInfo {
  /** `--output`, `-o` */
  names: string[];
  summary: string;
  /** Absent for flags that take no value. */
  values?: Values;
}

export interface CommandNode {
  /** Command words joined by spaces; '' is the top. */
  key: string;
  summary: string;
  /** Words that lead to a subcommand (aliases included), in help order. */
  subcommands: Array<{ name: string; key: string; summary: string }>;
  flags: FlagInfo[];
  positionals: Values[];
  /** Global flags whose values differ for this command (status: -o prometheus). */
  globalOverrides: FlagInfo[];
}

export interface CompletionModel {
  nodes: CommandNode[];
  /** Flags every command takes, --help included. */
  globals: FlagInfo[];
  /** Flags of the top level only (--version). */
  rootOnly: FlagInfo[];
}

/** Which resource's ids (or names) a parameter takes: the one it resolves names of when the service lists it, else what its spec says. */
function idsFor(p: ParamSpec): IdResource | undefined {
  return p.names && NAMED_KINDS[p.names].list ? p.names : p.complete;
}

function valuesOf(p: ParamSpec): Values {
  const ids = idsFor(p);
  if (ids) return { kind: 'ids', resource: ids };
  switch (p.type) {
    case 'enum':
      return { kind: 'words', words: [...(p.values ?? []), ...Object.keys(p.aliases ?? {})] };
    case 'sort':
      return { kind: 'words', words: (p.values ?? []).flatMap((v) => [v, `-${v}`]) };
    case 'tags':
      return { kind: 'list', words: [...(p.values ?? DEFAULT_TAGS)] };
    case 'json-file':
    case 'text-file':
      return { kind: 'files' };
    default:
      return { kind: 'none' };
  }
}

function flagsOf(spec: ManifestCommand): FlagInfo[] {
  const out: FlagInfo[] = [];
  for (const p of effectiveParams(spec)) {
    if (p.positional || p.hidden) continue;
    const names = [`--${flagName(p)}`, ...(p.short ? [`-${p.short}`] : [])];
    out.push(p.type === 'boolean' ? { names, summary: p.description } : { names, summary: p.description, values: valuesOf(p) });
    if (p.nullable) out.push({ names: [`--no-${flagName(p)}`], summary: `send ${flagName(p)} as null (removes it)` });
  }
  return out;
}

function globalValues(long: string | undefined, formats: readonly string[]): Values {
  if (long === '--output') return { kind: 'words', words: [...formats] };
  if (long === '--config-dir') return { kind: 'dirs' };
  if (long === '--profile') return { kind: 'ids', resource: 'profiles' };
  return { kind: 'none' };
}

/**
 * The command tree as completion sees it: the manifest's commands (hidden
 * ones left out), the global options as the real program declares them,
 * and `help` with its topics.
 */
export function completionModel(manifest: Manifest): CompletionModel {
  // The global options are read from the program itself so the scripts cannot miss one.
  const program = declaredProgram(manifest);
  const globals: FlagInfo[] = [];
  const rootOnly: FlagInfo[] = [];
  for (const o of program.options) {
    if (o.hidden) continue;
    const names = [o.long, o.short].filter((n): n is string => !!n);
    const info: FlagInfo = o.required || o.optional
      ? { names, summary: o.description, values: globalValues(o.long, OUTPUT_FORMATS) }
      : { names, summary: o.description };
    (o.long === '--version' ? rootOnly : globals).push(info);
  }
  globals.push({ names: ['--help', '-h'], summary: 'show help for the command' });

  const nodes = new Map<string, CommandNode>();
  const node = (key: string): CommandNode => {
    let n = nodes.get(key);
    if (!n) {
      n = { key, summary: manifest.groups[key] ?? '', subcommands: [], flags: [], positionals: [], globalOverrides: [] };
      nodes.set(key, n);
    }
    return n;
  };
  const addSub = (parent: CommandNode, name: string, key: string, summary: string) => {
    const existing = parent.subcommands.find((s) => s.name === name);
    if (existing) existing.summary ||= summary;
    else parent.subcommands.push({ name, key, summary });
  };
  node('');
  for (const spec of manifest.commands) {
    if (spec.hidden) continue;
    for (let i = 1; i <= spec.path.length; i++) {
      const key = spec.path.slice(0, i).join(' ');
      const n = node(key);
      const isLeaf = i === spec.path.length;
      if (isLeaf) n.summary = spec.summary;
      addSub(node(spec.path.slice(0, i - 1).join(' ')), spec.path[i - 1]!, key, isLeaf ? spec.summary : n.summary);
    }
    const key = spec.path.join(' ');
    const n = node(key);
    const parent = node(spec.path.slice(0, -1).join(' '));
    for (const alias of spec.aliases ?? []) addSub(parent, alias, key, spec.summary);
    n.flags = flagsOf(spec);
    n.positionals = effectiveParams(spec)
      .filter((p) => p.positional)
      .map((p) => valuesOf(p));
    if (spec.extraFormats?.length) {
      const output = globals.find((g) => g.names.includes('--output'));
      if (output) n.globalOverrides.push({ ...output, values: globalValues('--output', [...OUTPUT_FORMATS, ...spec.extraFormats]) });
    }
    // --columns takes the keys of the command's table, comma-separated.
    const columns = globals.find((g) => g.names.includes('--columns'));
    if (columns && spec.columnKeys?.length) n.globalOverrides.push({ ...columns, values: { kind: 'list', words: [...spec.columnKeys] } });
  }
  const help = program.commands.find((c) => c.name() === 'help');
  if (help) {
    const root = node('');
    const tops = root.subcommands.map((s) => s.name);
    const h = node('help');
    h.summary = help.description();
    h.positionals = [{ kind: 'words', words: [...Object.keys(helpTopics), ...LATER_TOPICS, ...tops] }];
    addSub(root, 'help', 'help', h.summary);
  }
  return { nodes: [...nodes.values()], globals, rootOnly };
}

