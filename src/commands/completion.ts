// `backupctl completion bash|zsh|fish`: shell completion scripts generated
// from the command registry, and the hidden `backupctl __complete ids <what>`
// the scripts call to offer job and server ids. The same scripts are
// committed under completions/ (the build's --docs step writes them).
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Client, Handler, RequestSpec } from '../cli/types.js';
import { declaredProgram } from '../cli/manifest.js';
import type { CompletionSource, Manifest, ManifestCommand, ModuleSpec, ParamSpec } from '../resources/types.js';
import { effectiveParams, flagName } from '../cli/params.js';
import { OUTPUT_FORMATS } from '../output/options.js';
import { helpTopics } from './help-topics.js';
import { NAMED_KINDS, isNamedKind } from '../cli/resolve.js';
import { startupSource } from '../main.js';

export type Shell = 'bash' | 'zsh' | 'fish';
export const SHELLS: readonly Shell[] = ['bash', 'zsh', 'fish'];

/** Where each script is committed, relative to the repository root. */
export const COMPLETION_FILES: Record<Shell, string> = {
  bash: 'completions/backupctl.bash',
  zsh: 'completions/_backupctl',
  fish: 'completions/backupctl.fish',
};

/** What the scripts ask `__complete` for: a named resource the service lists, or another source (src/resources/types.ts). */
type IdResource = CompletionSource;

/** How long fetched ids are offered again without asking the service. */
const CACHE_TTL_MS = 60_000;
/** Completion answers within this long of the process starting (the shell waits for it): node's start included. */
const ANSWER_WITHIN_MS = 400;
/** The look-up gets at least this long, however slow the start was. */
const MIN_LOOKUP_MS = 150;
/** After a failed look-up the service is not asked again for the same list for this long: every TAB would wait again. */
const DOWN_TTL_MS = 15_000;
/** The tag names a `tags` flag takes when its spec lists none (as src/cli/values.ts assumes). */
const DEFAULT_TAGS = ['manual', 'hourly', 'daily', 'weekly', 'monthly'];

export const module: ModuleSpec = {
  name: 'completion',
  commands: [
    {
      path: ['completion'],
      summary: 'Print the shell completion script for bash, zsh or fish',
      description:
        'Completes commands, flags, enum values, --profile (the config file\'s profiles), the commands schema takes and ' +
        'each command\'s --columns; from the service, the names of jobs, servers, SSH keys, storage, accounts, droplets and ' +
        'volumes (zsh and fish show each id beside its name; bash quotes a name that holds a space) and the ids of snapshots, restores and backups, ' +
        'cached for a minute. A service that does not answer within 0.4 s of the start is not asked again for 15 s. ' +
        'The same scripts ship in completions/ of the package.',
      examples: [
        'source <(backupctl completion bash)                                   # bash, this shell',
        'backupctl completion bash > ~/.local/share/bash-completion/completions/backupctl',
        'backupctl completion zsh > "${fpath[1]}/_backupctl"                   # zsh, then restart it',
        'backupctl completion fish > ~/.config/fish/completions/backupctl.fish',
      ],
      params: [
        { name: 'shell', in: 'local', type: 'enum', values: SHELLS, positional: true, required: true, description: 'The shell: bash, zsh or fish' },
      ],
      output: { kind: 'object' },
      handler: 'script',
      local: true,
    },
    {
      path: ['__complete'],
      summary: 'Ids and names for shell completion (used by the completion scripts)',
      description:
        'Prints `id<TAB>description` lines (ids) or, for resources with names, `name<TAB>id` lines (names) of the first 100 records, ' +
        'cached for 60 s. One attempt, answered within 0.4 s of the start; after a failure the service is not asked for 15 s. ' +
        'Prints nothing and exits 0 on any error.',
      examples: ['backupctl __complete ids jobs', 'backupctl __complete names servers', 'backupctl __complete ids backups "shop mysql"', 'backupctl __complete ids commands jobs'],
      params: [
        { name: 'what', in: 'local', type: 'string', positional: true, required: true, description: 'What to list: ids or names' },
        {
          name: 'resource',
          in: 'local',
          type: 'string',
          positional: true,
          required: true,
          description:
            'jobs, servers, ssh-keys, storage, accounts, droplets, volumes, snapshots, droplets-snapshots, volumes-snapshots, resources, restores, backups; ' +
            'profiles; commands (those schema takes)',
        },
        {
          name: 'arg1',
          in: 'local',
          type: 'string',
          positional: true,
          description: "The first argument on the command line: the job whose backups, the droplet or volume whose snapshots to list; schema's first word",
        },
        { name: 'arg2', in: 'local', type: 'string', positional: true, description: "The second argument on the command line: schema's second word" },
      ],
      output: { kind: 'object' },
      handler: 'ids',
      alsoCalls: [
        ...Object.values(NAMED_KINDS).flatMap((k) => (k.list ? [`GET ${k.list}`] : [])),
        'GET /snapshots',
        'GET /restore-jobs',
        'GET /jobs/{job_id}/backups',
        'GET /cloud_i/droplets/{droplet_id}/snapshots',
        'GET /cloud_i/volumes/{volume_id}/snapshots',
        'GET /snapshots/resources',
      ],
      hidden: true,
    },
  ],
};

// ---------------------------------------------------------------------------
// What completes to what, from the manifest

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
      return { kind: 'words', words: [...(p.values ?? [])] };
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
    h.positionals = [{ kind: 'words', words: [...Object.keys(helpTopics), ...tops] }];
    addSub(root, 'help', 'help', h.summary);
  }
  return { nodes: [...nodes.values()], globals, rootOnly };
}

// ---------------------------------------------------------------------------
// Scripts

const HEADER_NOTE = 'Generated from the command registry by `npm run docs` (the same as `backupctl completion';

/** A value spec the scripts read: `words a b`, `list a b`, `files`, `dirs`, `ids jobs`, `none`. */
function valueSpec(v: Values): string {
  switch (v.kind) {
    case 'words':
    case 'list':
      return [v.kind, ...v.words].join(' ');
    case 'ids':
      return `ids ${v.resource}`;
    default:
      return v.kind;
  }
}

/** Single-quoted for sh, bash and zsh. */
const sq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
/** Single-quoted for fish. */
const fq = (s: string): string => `'${s.replace(/[\\']/g, (c) => `\\${c}`)}'`;
/** One line of help text, for descriptions. */
const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim();

interface CaseEntry {
  patterns: string[];
  body: string;
}

/** Entries for the flag-value lookup: command flags first, then per-command global overrides, then globals. */
function flagValueEntries(model: CompletionModel, quote: (s: string) => string): CaseEntry[] {
  const entries: CaseEntry[] = [];
  for (const n of model.nodes) {
    for (const f of [...n.flags, ...n.globalOverrides]) {
      if (f.values) entries.push({ patterns: f.names.map((name) => quote(`${n.key}/${name}`)), body: valueSpec(f.values) });
    }
  }
  for (const f of [...model.globals, ...model.rootOnly]) {
    if (f.values) entries.push({ patterns: f.names.map((name) => `*/${name}`), body: valueSpec(f.values) });
  }
  return entries;
}

function commandEntries(model: CompletionModel, quote: (s: string) => string): CaseEntry[] {
  return model.nodes.flatMap((n) => n.subcommands.map((s) => ({ patterns: [quote(`${n.key}/${s.name}`)], body: s.key })));
}

function positionalEntries(model: CompletionModel, quote: (s: string) => string): CaseEntry[] {
  return model.nodes.flatMap((n) =>
    n.positionals.flatMap((v, i) => (v.kind === 'none' ? [] : [{ patterns: [quote(`${n.key}/${i}`)], body: valueSpec(v) }])),
  );
}

function shCase(subject: string, entries: readonly CaseEntry[], print: (body: string) => string): string {
  const lines = entries.map((e) => `    ${e.patterns.join('|')}) ${print(e.body)} ;;`);
  return [`  case ${subject} in`, ...lines, '  esac'].join('\n');
}

function fishSwitch(subject: string, entries: readonly CaseEntry[], print: (body: string) => string): string {
  const lines = entries.flatMap((e) => [`        case ${e.patterns.join(' ')}`, `            ${print(e.body)}`]);
  return [`    switch ${subject}`, ...lines, '    end'].join('\n');
}

function bashScript(model: CompletionModel): string {
  // The resources with names: bash offers their names (zsh and fish show the id beside each).
  const namedKinds = Object.entries(NAMED_KINDS)
    .filter(([, k]) => k.list)
    .map(([kind]) => kind)
    .join(' ');
  const words = (list: string[]) => `echo ${sq(list.join(' '))}`;
  const flagNames = (flags: FlagInfo[]) => flags.flatMap((f) => f.names);
  return `# bash completion for backupctl
# ${HEADER_NOTE} bash\`); do not edit.
#
# This shell:      source <(backupctl completion bash)
# Every shell:     backupctl completion bash > ~/.local/share/bash-completion/completions/backupctl
# Names of jobs, servers, keys, storage, accounts, droplets and volumes (quoted when they hold a space), and the ids
# of snapshots, restores and backups come from the service (backupctl __complete names jobs), cached for a minute;
# profiles from the config file.

# The command that word $2 names below command $1 ('' is the top), or nothing.
__backupctl_command() {
${shCase('"$1/$2"', commandEntries(model, sq), (b) => `echo ${sq(b)}`)}
}

# The subcommands of command $1.
__backupctl_subcommands() {
${shCase('"$1"', model.nodes.filter((n) => n.subcommands.length).map((n) => ({ patterns: [sq(n.key)], body: n.subcommands.map((s) => s.name).join(' ') })), (b) => `echo ${sq(b)}`)}
}

# The flags of command $1, without the global ones.
__backupctl_flags() {
${shCase('"$1"', model.nodes.filter((n) => n.flags.length).map((n) => ({ patterns: [sq(n.key)], body: flagNames(n.flags).join(' ') })), (b) => `echo ${sq(b)}`)}
}

__backupctl_global_flags() {
  ${words(flagNames(model.globals))}
}

__backupctl_root_flags() {
  ${words(flagNames(model.rootOnly))}
}

# What the value of flag $2 of command $1 completes to; nothing when the flag takes no value.
__backupctl_flag_value() {
${shCase('"$1/$2"', flagValueEntries(model, sq), (b) => `echo ${sq(b)}`)}
}

# What positional argument $2 (from 0) of command $1 completes to.
__backupctl_positional() {
${shCase('"$1/$2"', positionalEntries(model, sq), (b) => `echo ${sq(b)}`)}
}

# Adds the candidates of value spec $1 that match $cur to COMPREPLY.
__backupctl_reply() {
  local -a values=()
  local w pre="" last="$cur"
  read -r -a values <<<"\${1#* }"
  case "\${1%% *}" in
    words)
      for w in "\${values[@]}"; do [[ $w == "$cur"* ]] && COMPREPLY+=("$w"); done ;;
    list)
      if [[ $cur == *,* ]]; then pre="\${cur%,*},"; last="\${cur##*,}"; fi
      for w in "\${values[@]}"; do
        [[ $w == "$last"* && ",$pre" != *",$w,"* ]] && COMPREPLY+=("$pre$w")
      done
      compopt -o nospace 2>/dev/null ;;
    files)
      compopt -o filenames 2>/dev/null
      while IFS= read -r w; do COMPREPLY+=("$w"); done < <(compgen -f -- "$cur") ;;
    dirs)
      compopt -o filenames 2>/dev/null
      while IFS= read -r w; do COMPREPLY+=("$w"); done < <(compgen -d -- "$cur") ;;
    ids)
      if [[ " ${namedKinds} " == *" \${values[0]} "* ]]; then
        __backupctl_names "\${values[0]}"
      else
        while IFS=$'\\t' read -r w _; do
          [[ -n $w && $w == "$cur"* ]] && COMPREPLY+=("$w")
        done < <("\${COMP_WORDS[0]}" "\${extra[@]}" __complete ids "\${values[0]}" "\${args[@]:0:2}" 2>/dev/null)
      fi ;;
  esac
}

# Adds to COMPREPLY the names of resource $1 that start with what is typed (in quotes, with
# backslashes or bare), quoted when they hold a space or another character the shell reads;
# the id of a record with no name, or whose id starts with what is typed.
__backupctl_names() {
  local w id q="" typed
  case "$cur" in
    \\"*) q='"'; typed="\${cur#\\"}" ;;
    \\'*) q="'"; typed="\${cur#\\'}" ;;
    *) typed="\${cur//\\\\/}" ;;
  esac
  while IFS=$'\\t' read -r w id; do
    [[ -z $w ]] && continue
    if [[ -z $id ]]; then
      [[ $w == "$typed"* ]] && COMPREPLY+=("$w")
    elif [[ $w == "$typed"* ]]; then
      if [[ -n $q ]]; then
        COMPREPLY+=("$q$w$q")
      elif [[ $w == *[^A-Za-z0-9._:@%+=,/-]* && $w != *"'"* ]]; then
        COMPREPLY+=("'$w'")
      else
        printf -v w '%q' "$w"
        COMPREPLY+=("$w")
      fi
    elif [[ -n $typed && $id == "$typed"* ]]; then
      COMPREPLY+=("$id")
    fi
  done < <("\${COMP_WORDS[0]}" "\${extra[@]}" __complete names "$1" "\${args[@]:0:2}" 2>/dev/null)
}

_backupctl() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" node="" npos=0 i w next spec
  # --profile, --base-url and --config-dir given on the line pick the service the ids come from;
  # the arguments before the one completed narrow them (the job of a backup, schema's words).
  local -a extra=() args=()
  COMPREPLY=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in
      -*=*) ;;
      -?*)
        spec="$(__backupctl_flag_value "$node" "$w")"
        if [[ -n $spec ]] && ((i + 1 < COMP_CWORD)); then
          i=$((i + 1))
          # bash splits --flag=value at the = (COMP_WORDBREAKS).
          if [[ \${COMP_WORDS[i]} == "=" ]] && ((i + 1 < COMP_CWORD)); then i=$((i + 1)); fi
          case "$w" in --profile | --base-url | --config-dir) extra+=("$w" "\${COMP_WORDS[i]}") ;; esac
        fi ;;
      *)
        next="$(__backupctl_command "$node" "$w")"
        if [[ -n $next && $npos -eq 0 ]]; then node="$next"; else npos=$((npos + 1)); args+=("$w"); fi ;;
    esac
  done
  if ((COMP_CWORD > 1)); then prev="\${COMP_WORDS[COMP_CWORD - 1]}"; fi
  if [[ $cur == "=" ]]; then
    cur=""
  elif [[ $prev == "=" ]] && ((COMP_CWORD > 2)); then
    prev="\${COMP_WORDS[COMP_CWORD - 2]}"
  fi
  if [[ $prev == -?* && $prev != *=* ]]; then
    spec="$(__backupctl_flag_value "$node" "$prev")"
    if [[ -n $spec ]]; then
      __backupctl_reply "$spec"
      return 0
    fi
  fi
  if [[ $cur == -* ]]; then
    spec="words $(__backupctl_flags "$node") $(__backupctl_global_flags)"
    if [[ -z $node ]]; then spec="$spec $(__backupctl_root_flags)"; fi
    __backupctl_reply "$spec"
    return 0
  fi
  if ((npos == 0)); then
    spec="$(__backupctl_subcommands "$node")"
    if [[ -n $spec ]]; then __backupctl_reply "words $spec"; fi
  fi
  spec="$(__backupctl_positional "$node" "$npos")"
  if [[ -n $spec ]]; then __backupctl_reply "$spec"; fi
  return 0
}

complete -F _backupctl backupctl
`;
}

function zshScript(model: CompletionModel): string {
  // `name:description` lines for _describe; a colon in a name is escaped.
  const described = (items: Array<{ name: string; summary: string }>) =>
    items.map((i) => `${i.name.replace(/:/g, '\\:')}:${oneLine(i.summary)}`);
  const flagLines = (flags: FlagInfo[]) => described(flags.flatMap((f) => f.names.map((name) => ({ name, summary: f.summary }))));
  const lines = (items: string[]) => `print -rl -- ${items.map(sq).join(' ')}`;
  return `#compdef backupctl
compdef _backupctl backupctl
# zsh completion for backupctl
# ${HEADER_NOTE} zsh\`); do not edit.
#
# Every shell:  save it as _backupctl in a folder of $fpath, e.g.
#                 backupctl completion zsh > "\${fpath[1]}/_backupctl"
#               (with compinit in ~/.zshrc), then start a new shell.
# This shell:   source <(backupctl completion zsh)   (after compinit)
# Names of jobs, servers, keys, storage, accounts, droplets and volumes, each with its id, and the ids of snapshots,
# restores and backups come from the service (backupctl __complete names jobs), cached for a minute.

# The command that word $2 names below command $1 ('' is the top), or nothing.
__backupctl_command() {
${shCase('"$1/$2"', commandEntries(model, sq), (b) => `print -r -- ${sq(b)}`)}
}

# The subcommands of command $1, as name:description lines.
__backupctl_subcommands() {
${shCase('"$1"', model.nodes.filter((n) => n.subcommands.length).map((n) => ({ patterns: [sq(n.key)], body: lines(described(n.subcommands)) })), (b) => b)}
}

# The flags of command $1 without the global ones, as name:description lines.
__backupctl_flags() {
${shCase('"$1"', model.nodes.filter((n) => n.flags.length).map((n) => ({ patterns: [sq(n.key)], body: lines(flagLines(n.flags)) })), (b) => b)}
}

__backupctl_global_flags() {
  ${lines(flagLines(model.globals))}
}

__backupctl_root_flags() {
  ${lines(flagLines(model.rootOnly))}
}

# What the value of flag $2 of command $1 completes to; nothing when the flag takes no value.
__backupctl_flag_value() {
${shCase('"$1/$2"', flagValueEntries(model, sq), (b) => `print -r -- ${sq(b)}`)}
}

# What positional argument $2 (from 0) of command $1 completes to.
__backupctl_positional() {
${shCase('"$1/$2"', positionalEntries(model, sq), (b) => `print -r -- ${sq(b)}`)}
}

# Offers the candidates of value spec $1.
__backupctl_values() {
  local -a values described
  local line
  values=(\${=\${1#* }})
  case \${1%% *} in
    words) compadd -a values ;;
    list) _values -s , value $values ;;
    files) _files ;;
    dirs) _files -/ ;;
    ids)
      for line in \${(f)"$("\${words[1]}" "\${extra[@]}" __complete names "\${values[1]}" \${args[1,2]} 2>/dev/null)"}; do
        if [[ $line == *$'\\t'* ]]; then
          described+=("\${\${line%%$'\\t'*}//:/\\\\:}:\${line#*$'\\t'}")
        else
          described+=("\${line//:/\\\\:}")
        fi
      done
      _describe -t ids id described ;;
    *) return 1 ;;
  esac
}

_backupctl() {
  local cur=\${words[CURRENT]} prev='' node='' npos=0 i w next spec ret=1
  # --profile, --base-url and --config-dir given on the line pick the service the ids come from;
  # the arguments before the one completed narrow them (the job of a backup, schema's words).
  local -a extra args items
  for ((i = 2; i < CURRENT; i++)); do
    w=\${words[i]}
    case $w in
      -*=*) ;;
      -?*)
        spec=$(__backupctl_flag_value "$node" "$w")
        if [[ -n $spec ]] && ((i + 1 < CURRENT)); then
          i=$((i + 1))
          case $w in --profile | --base-url | --config-dir) extra+=("$w" "\${words[i]}") ;; esac
        fi ;;
      *)
        next=$(__backupctl_command "$node" "$w")
        if [[ -n $next && $npos -eq 0 ]]; then node=$next; else npos=$((npos + 1)); args+=("$w"); fi ;;
    esac
  done
  ((CURRENT > 2)) && prev=\${words[CURRENT-1]}
  if [[ $cur == --*=* ]]; then
    spec=$(__backupctl_flag_value "$node" "\${cur%%=*}")
    [[ -n $spec ]] || return 1
    compset -P '*='
    __backupctl_values "$spec"
    return
  fi
  if [[ $prev == -?* ]]; then
    spec=$(__backupctl_flag_value "$node" "$prev")
    if [[ -n $spec ]]; then
      __backupctl_values "$spec"
      return
    fi
  fi
  if [[ $cur == -* ]]; then
    items=(\${(f)"$(__backupctl_flags "$node"; __backupctl_global_flags; [[ -z $node ]] && __backupctl_root_flags)"})
    _describe -t options option items
    return
  fi
  if ((npos == 0)); then
    items=(\${(f)"$(__backupctl_subcommands "$node")"})
    ((\${#items})) && _describe -t commands command items && ret=0
  fi
  spec=$(__backupctl_positional "$node" "$npos")
  [[ -n $spec ]] && __backupctl_values "$spec" && ret=0
  return ret
}

# Loaded from $fpath, this file is the body of _backupctl: run the completion now.
if [[ $funcstack[1] == _backupctl ]]; then
  _backupctl "$@"
fi
`;
}

function fishScript(model: CompletionModel): string {
  // `name<TAB>description` lines; fish shows the description beside the candidate.
  const described = (items: Array<{ name: string; summary: string }>) =>
    items.length ? `printf '%s\\t%s\\n' ${items.map((i) => `${fq(i.name)} ${fq(oneLine(i.summary))}`).join(' ')}` : 'true';
  const flagItems = (flags: FlagInfo[]) => flags.flatMap((f) => f.names.map((name) => ({ name, summary: f.summary })));
  return `# fish completion for backupctl
# ${HEADER_NOTE} fish\`); do not edit.
#
# Every shell:  backupctl completion fish > ~/.config/fish/completions/backupctl.fish
# This shell:   backupctl completion fish | source
# Names of jobs, servers, keys, storage, accounts, droplets and volumes, each with its id, and the ids of snapshots,
# restores and backups come from the service (backupctl __complete names jobs), cached for a minute.

# The command that word $argv[2] names below command $argv[1] ('' is the top), or nothing.
function __backupctl_command
${fishSwitch('"$argv[1]/$argv[2]"', commandEntries(model, fq), (b) => `echo ${fq(b)}`)}
end

# The subcommands of command $argv[1].
function __backupctl_subcommands
${fishSwitch('"$argv[1]"', model.nodes.filter((n) => n.subcommands.length).map((n) => ({ patterns: [fq(n.key)], body: described(n.subcommands) })), (b) => b)}
end

# The flags of command $argv[1], without the global ones.
function __backupctl_flags
${fishSwitch('"$argv[1]"', model.nodes.filter((n) => n.flags.length).map((n) => ({ patterns: [fq(n.key)], body: described(flagItems(n.flags)) })), (b) => b)}
end

function __backupctl_global_flags
    ${described(flagItems(model.globals))}
end

function __backupctl_root_flags
    ${described(flagItems(model.rootOnly))}
end

# What the value of flag $argv[2] of command $argv[1] completes to; nothing when the flag takes no value.
function __backupctl_flag_value
${fishSwitch('"$argv[1]/$argv[2]"', flagValueEntries(model, fq).map((e) => ({ ...e, patterns: e.patterns.map((p) => (p.startsWith('*') ? fq(p) : p)) })), (b) => `echo ${fq(b)}`)}
end

# What positional argument $argv[2] (from 0) of command $argv[1] completes to.
function __backupctl_positional
${fishSwitch('"$argv[1]/$argv[2]"', positionalEntries(model, fq), (b) => `echo ${fq(b)}`)}
end

# Prints the candidates of value spec $argv[1], each after the prefix $argv[2]
# (--flag= when completing --flag=value); $argv[3..] up to -- runs backupctl for ids,
# and the arguments after -- are those before the one completed.
function __backupctl_values
    set -l parts (string split ' ' -- $argv[1])
    set -l prefix $argv[2]
    set -l value (string sub -s (math (string length -- "$prefix") + 1) -- (commandline -ct))
    switch $parts[1]
        case words
            for w in $parts[2..-1]
                printf '%s%s\\n' $prefix $w
            end
        case list
            set -l done (string match -r '^.*,' -- $value)
            for w in $parts[2..-1]
                if not contains -- $w (string split , -- "$done")
                    printf '%s%s%s\\n' $prefix "$done" $w
                end
            end
        case files
            for p in (__fish_complete_path $value)
                printf '%s%s\\n' $prefix $p
            end
        case dirs
            for p in (__fish_complete_directories $value)
                printf '%s%s\\n' $prefix $p
            end
        case ids
            set -l rest $argv[3..-1]
            set -l sep (contains -i -- -- $rest)
            set -l before (math $sep - 1)
            set -l first (math $sep + 1)
            set -l second (math $sep + 2)
            for line in (command $rest[1..$before] __complete names $parts[2] $rest[$first..$second] 2>/dev/null)
                printf '%s%s\\n' $prefix $line
            end
    end
end

function __backupctl_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l n (count $tokens)
    set -l node ''
    set -l npos 0
    # --profile, --base-url and --config-dir given on the line pick the service the ids come from;
    # the arguments before the one completed narrow them (the job of a backup, schema's words).
    set -l run $tokens[1]
    set -l args
    set -l i 2
    while test $i -le $n
        set -l w $tokens[$i]
        switch $w
            case '-*=*'
            case '-?*'
                set -l spec (__backupctl_flag_value "$node" $w)
                if test -n "$spec"; and test $i -lt $n
                    set i (math $i + 1)
                    if contains -- $w --profile --base-url --config-dir
                        set -a run $w $tokens[$i]
                    end
                end
            case '*'
                set -l next (__backupctl_command "$node" $w)
                if test -n "$next"; and test $npos -eq 0
                    set node $next
                else
                    set npos (math $npos + 1)
                    set -a args $w
                end
        end
        set i (math $i + 1)
    end
    if string match -q -- '--*=*' $cur
        set -l flag (string replace -r '=.*' '' -- $cur)
        set -l spec (__backupctl_flag_value "$node" $flag)
        if test -n "$spec"
            __backupctl_values "$spec" "$flag=" $run -- $args
        end
        return
    end
    if test $n -ge 2; and string match -q -- '-?*' $tokens[-1]
        set -l spec (__backupctl_flag_value "$node" $tokens[-1])
        if test -n "$spec"
            __backupctl_values "$spec" '' $run -- $args
            return
        end
    end
    if string match -q -- '-*' $cur
        __backupctl_flags "$node"
        __backupctl_global_flags
        if test -z "$node"
            __backupctl_root_flags
        end
        return
    end
    if test $npos -eq 0
        __backupctl_subcommands "$node"
    end
    set -l spec (__backupctl_positional "$node" $npos)
    if test -n "$spec"
        __backupctl_values "$spec" '' $run -- $args
    end
end

complete -c backupctl -f -a '(__backupctl_complete)'
`;
}

/** The completion script for a shell, generated from the manifest. */
export function completionScript(manifest: Manifest, shell: Shell): string {
  const model = completionModel(manifest);
  switch (shell) {
    case 'bash':
      return bashScript(model);
    case 'zsh':
      return zshScript(model);
    case 'fish':
      return fishScript(model);
  }
}

/** Every committed script: path relative to the repository root -> content (for the build's --docs). */
export function completionFiles(manifest: Manifest): Record<string, string> {
  return Object.fromEntries(SHELLS.map((s) => [COMPLETION_FILES[s], completionScript(manifest, s)]));
}

// ---------------------------------------------------------------------------
// The manifest at run time

/**
 * The whole command tree, read from dist/startup/ (the index and a file per
 * group, the files start-up reads) through main.ts's startupSource: the same
 * commands, in the same order, as dist/manifest.json, which neither the npm
 * package nor the single executable ships (94 kB of the 3 MB an install may
 * take, issue 14). A test holds the two equal.
 */
export function readManifest(): Manifest {
  const source = startupSource();
  return { version: source.version, groups: source.groups, commands: source.tops.flatMap((top) => source.commandsOf(top)) };
}

const script: Handler = async (input) => {
  const shell = input.values.shell as Shell;
  return { kind: 'text', text: completionScript(readManifest(), shell) };
};

// ---------------------------------------------------------------------------
// __complete ids

interface IdItem {
  id: string;
  name: string;
}

interface IdCache {
  saved_at: number;
  /** The ids belong to this profile at this service; another one asks afresh. */
  profile: string;
  base_url: string;
  /** Absent when the look-up failed: then nothing is offered until the entry is DOWN_TTL_MS old. */
  items?: IdItem[];
}

/** Only plain ids reach a shell; names lose control characters (they are shown as descriptions). */
function toItems(records: unknown, describe: (r: Record<string, unknown>) => unknown = (r) => r.name): IdItem[] {
  if (!Array.isArray(records)) return [];
  const out: IdItem[] = [];
  for (const r of records) {
    const rec = (r ?? {}) as Record<string, unknown>;
    const id = typeof rec.id === 'number' || typeof rec.id === 'string' ? String(rec.id) : '';
    if (!/^[\w.:-]+$/.test(id)) continue;
    const label = describe(rec);
    const name = typeof label === 'string' ? label.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim() : '';
    out.push({ id, name });
  }
  return out;
}

async function readJson<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch {
    // No file, or a broken one.
    return undefined;
  }
}

/** Whether a cache entry holds the answer for this profile and service: ids for a minute, a failure briefly. */
function fresh(c: IdCache | undefined, profile: string, baseUrl: string, now: number): c is IdCache {
  if (!c || typeof c.saved_at !== 'number') return false;
  const ttl = Array.isArray(c.items) ? CACHE_TTL_MS : DOWN_TTL_MS;
  return now >= c.saved_at && now - c.saved_at < ttl && c.profile === profile && c.base_url === baseUrl;
}

async function writeCache(file: string, cache: object): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    await writeFile(tmp, JSON.stringify(cache), { mode: 0o600 });
    await rename(tmp, file);
  } catch {
    await rm(tmp, { force: true });
  }
}

/** One day's date and time, for descriptions: `2026-11-22 10:51`. */
const when = (v: unknown): string => (typeof v === 'string' ? v.replace('T', ' ').slice(0, 16) : '');
const words = (...parts: unknown[]): string => parts.filter((p) => typeof p === 'string' && p !== '').join(' ');

/** A request for the first page of records, newest first where the endpoint sorts. */
const firstPage = (path: string, sort?: string, pageSize = 100): RequestSpec => ({ method: 'GET', path, query: { page_size: pageSize, ...(sort ? { sort } : {}) } });

/**
 * The records a source offers, read from the service with one attempt per
 * request. `args` are the command line's arguments before the one completed:
 * for backups, the first is the job (id or name) whose backups are offered,
 * without it the newest backups of every job; for the snapshots of a droplet
 * or volume, the first is the droplet or volume.
 */
async function serviceItems(source: Exclude<CompletionSource, 'profiles' | 'commands'>, args: readonly string[], client: Client, signal: AbortSignal): Promise<IdItem[]> {
  const data = async (req: RequestSpec): Promise<unknown> => ((await client.request(req, { signal })).body as { data?: unknown } | undefined)?.data;
  switch (source) {
    case 'snapshots':
      return toItems(await data(firstPage('/snapshots', '-started_at')));
    case 'droplets-snapshots':
    case 'volumes-snapshots': {
      // Those of the droplet or volume already on the line (by id or name).
      if (!args[0]) return [];
      const kind = source === 'droplets-snapshots' ? 'droplets' : 'volumes';
      const { resolveId } = await import('../cli/resolve.js');
      const owner = String(await resolveId(client, kind, args[0], { signal }));
      return toItems(await data(firstPage(`${NAMED_KINDS[kind].list}/${encodeURIComponent(owner)}/snapshots`, '-started_at')));
    }
    case 'resources':
      // Disks and servers of connected accounts: no name; their type, provider and address describe them.
      return toItems(await data(firstPage('/snapshots/resources')), (r) =>
        words(r.type, (r.provider as { pretty_name?: unknown } | undefined)?.pretty_name, r.last_known_ip),
      );
    case 'restores':
      // The service lists restore jobs without page_size.
      return toItems(await data({ method: 'GET', path: '/restore-jobs' }), (r) =>
        words((r.compute as { server?: { name?: unknown } } | undefined)?.server?.name, r.status, when(r.created_at)),
      );
    case 'backups': {
      if (args[0]) {
        const { resolveId } = await import('../cli/resolve.js');
        const jobId = String(await resolveId(client, 'jobs', args[0], { signal }));
        return toItems(await data(firstPage(`/jobs/${encodeURIComponent(jobId)}/backups`, '-created_at')), (r) => words(r.status, when(r.created_at)));
      }
      // A few of each job's newest: the pages of backups are large, and the answer must come fast.
      const jobs = await data(firstPage('/jobs'));
      const lists = await Promise.all(
        (Array.isArray(jobs) ? (jobs as Array<{ id?: unknown; name?: unknown }>) : [])
          .filter((j) => typeof j.id === 'string')
          .map(async (j) => {
            const records = await data(firstPage(`/jobs/${encodeURIComponent(j.id as string)}/backups`, '-created_at', 15));
            return Array.isArray(records) ? (records as Array<Record<string, unknown>>).map((r): Record<string, unknown> => ({ ...r, job: j.name })) : [];
          }),
      );
      const newest = lists.flat().sort((a, b) => String(b.created_at ?? '').localeCompare(String(a.created_at ?? '')));
      return toItems(newest.slice(0, 100), (r) => words(r.job, r.status, when(r.created_at)));
    }
    default: {
      const list = NAMED_KINDS[source].list;
      return list ? toItems(await data(firstPage(list))) : [];
    }
  }
}

/** The words `schema` takes after `args`: the next word of every command with a JSON schema, with its summary. */
function commandItems(manifest: Manifest, args: readonly string[]): IdItem[] {
  const items = new Map<string, string>();
  if (!args.length) items.set('file', 'the backups file of export, plan and apply');
  for (const c of manifest.commands) {
    if (c.hidden || !c.output.schema || c.output.kind === 'none' || c.path.length <= args.length) continue;
    if (!args.every((a, i) => c.path[i] === a)) continue;
    const word = c.path[args.length]!;
    const key = c.path.slice(0, args.length + 1).join(' ');
    if (!items.has(word)) items.set(word, c.path.length === args.length + 1 ? c.summary : (manifest.groups[key] ?? ''));
  }
  return [...items].map(([id, name]) => ({ id, name }));
}

/** A word as bash and zsh pass it from the line being typed: with its quotes (`"shop mysql"`) or backslashes (`shop\ mysql`). */
const unquote = (w: string): string => (/^(['"]).*\1$/s.test(w) ? w.slice(1, -1) : w.replace(/\\(.)/g, '$1'));

const ids: Handler = async (input, ctx) => {
  // Completion must never print an error: whatever goes wrong, offer nothing.
  let client: Client | undefined;
  try {
    const source = String(input.values.resource);
    const what = input.values.what;
    const args = [input.values.arg1, input.values.arg2].filter((a): a is string => typeof a === 'string' && a !== '').map(unquote);
    const known = isNamedKind(source) ? !!NAMED_KINDS[source].list : ['snapshots', 'droplets-snapshots', 'volumes-snapshots', 'resources', 'restores', 'backups', 'profiles', 'commands'].includes(source);
    if ((what !== 'ids' && what !== 'names') || !known || ctx.globals.dryRun) return { kind: 'empty' };
    let items: IdItem[];
    if (source === 'commands') {
      items = commandItems(readManifest(), args);
    } else {
      const { configDir, openConfig, envValue, parseDuration } = await import('../config/index.js');
      const dir = configDir(ctx.env, ctx.globals.configDir);
      if (source === 'profiles') {
        items = (await openConfig(dir)).profileNames().map((id) => ({ id, name: '' }));
      } else {
        const settings = await ctx.settings();
        const { profile, baseUrl } = settings;
        const context = args.length ? `-${createHash('sha256').update(args.join('\0')).digest('hex').slice(0, 16)}` : '';
        const file = join(dir, 'cache', `completion-${source}${context}.json`);
        const cached = await readJson<IdCache>(file);
        if (fresh(cached, profile, baseUrl, Date.now())) {
          items = toItems(cached.items);
        } else if (!settings.token) {
          return { kind: 'empty' };
        } else {
          // One attempt, no retries, and an answer by ANSWER_WITHIN_MS after the start, unless
          // BACKUPCTL_COMPLETION_TIMEOUT gives the look-up longer (a distant service).
          const chosen = envValue(ctx.env, 'BACKUPCTL_COMPLETION_TIMEOUT');
          const budget = Math.round(chosen !== undefined ? parseDuration(chosen) : Math.max(MIN_LOOKUP_MS, ANSWER_WITHIN_MS - process.uptime() * 1000));
          const [{ createClient }, { defaultRetryPolicy }] = await Promise.all([import('../http/client.js'), import('../http/retry.js')]);
          client = createClient({ baseUrl, token: settings.token, timeoutMs: budget, debug: false, stderr: ctx.io.stderr, retry: { ...defaultRetryPolicy, maxRetries: 0 } });
          try {
            items = await serviceItems(source as Exclude<CompletionSource, 'profiles' | 'commands'>, args, client, AbortSignal.any([ctx.signal, AbortSignal.timeout(budget)]));
          } catch {
            await writeCache(file, { saved_at: Date.now(), profile, base_url: baseUrl } satisfies IdCache);
            return { kind: 'empty' };
          }
          await writeCache(file, { saved_at: Date.now(), profile, base_url: baseUrl, items } satisfies IdCache);
        }
      }
    }
    // Names for zsh and fish, which show the id beside each, where a name may stand for the id; else
    // the id with its description. A record without a name is offered by its id.
    const line = what === 'names' && isNamedKind(source) ? (i: IdItem) => (i.name ? `${i.name}\t${i.id}` : i.id) : (i: IdItem) => (i.name ? `${i.id}\t${i.name}` : i.id);
    return { kind: 'text', text: items.map(line).join('\n') };
  } catch {
    return { kind: 'empty' };
  } finally {
    // Not waited for: the process exits next (as Context.dispose does with its client).
    if (client) void client.close().catch(() => undefined);
  }
};

export const handlers: Record<string, Handler> = { script, ids };
