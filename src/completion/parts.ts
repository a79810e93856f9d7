// The pieces the three scripts share: the value specs they read, quoting, and the case tables
// (command words, flag values, positional arguments) each shell spells its own way.
import type { CompletionModel, Values } from './tree.js';

export const HEADER_NOTE = 'Generated from the command registry by `npm run docs` (the same as `backupctl completion';

/** A value spec the scripts read: `words a b`, `list a b`, `files`, `dirs`, `ids jobs`, `none`. */
export function valueSpec(v: Values): string {
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
export const sq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
/** Single-quoted for fish. */
export const fq = (s: string): string => `'${s.replace(/[\\']/g, (c) => `\\${c}`)}'`;
/** One line of help text, for descriptions. */
export const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim();

export interface CaseEntry {
  patterns: string[];
  body: string;
}

/** Entries for the flag-value lookup: command flags first, then per-command global overrides, then globals. */
export function flagValueEntries(model: CompletionModel, quote: (s: string) => string): CaseEntry[] {
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

export function commandEntries(model: CompletionModel, quote: (s: string) => string): CaseEntry[] {
  return model.nodes.flatMap((n) => n.subcommands.map((s) => ({ patterns: [quote(`${n.key}/${s.name}`)], body: s.key })));
}

export function positionalEntries(model: CompletionModel, quote: (s: string) => string): CaseEntry[] {
  return model.nodes.flatMap((n) =>
    n.positionals.flatMap((v, i) => (v.kind === 'none' ? [] : [{ patterns: [quote(`${n.key}/${i}`)], body: valueSpec(v) }])),
  );
}

export function shCase(subject: string, entries: readonly CaseEntry[], print: (body: string) => string): string {
  const lines = entries.map((e) => `    ${e.patterns.join('|')}) ${print(e.body)} ;;`);
  return [`  case ${subject} in`, ...lines, '  esac'].join('\n');
}

export function fishSwitch(subject: string, entries: readonly CaseEntry[], print: (body: string) => string): string {
  const lines = entries.flatMap((e) => [`        case ${e.patterns.join(' ')}`, `            ${print(e.body)}`]);
  return [`    switch ${subject}`, ...lines, '    end'].join('\n');
}

