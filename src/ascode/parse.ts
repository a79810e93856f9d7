// Reads a backups file: YAML parsed with positions, then every problem found
// at once (unknown keys with a near miss, types, required fields, cron
// expressions, time zones, secret references), each with its line and column.
import { readFile } from 'node:fs/promises';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';
import { FILE_NODE, SECRET_REFERENCE, type BackupsFile, type FieldNode } from './filespec.js';
import { editDistance } from '../util/suggest.js';
import { CRON_MACROS } from '../util/cron-macros.js';
import { parseDuration } from '../util/time.js';

export interface Problem {
  line: number;
  col: number;
  /** Dotted path of the value, e.g. jobs."shop mysql".schedules[0].cron */
  at: string;
  message: string;
}

/** A `${env:NAME}` or `${file:PATH}` of the file, where it stands. */
export interface Reference {
  ref: string;
  /** Dotted path of the value, e.g. storage.S3.key */
  at: string;
}

export interface ParsedFile {
  file: BackupsFile;
  /** Every secret reference of the file, in file order. */
  references: Reference[];
  /** Where each value stands, by dotted path, for problems found later (references). */
  where(at: string): { line: number; col: number };
  /** Name of the file, for messages. */
  name: string;
}

export interface CheckTools {
  /** What is wrong with a cron expression, or undefined. */
  cronError(expr: string): Promise<string | undefined>;
  timezoneError(zone: string): string | undefined;
}

export function pathText(parts: ReadonlyArray<string | number>): string {
  return parts
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : /^[A-Za-z_][\w-]*$/.test(p) ? `${i ? '.' : ''}${p}` : `${i ? '.' : ''}"${p}"`))
    .join('');
}


/**
 * Parses and checks the whole file; returns the file or every problem found.
 * References are checked for their form only: whether a secret is needed
 * depends on the plan (it is sent only where something is created).
 */
export async function parseBackupsFile(text: string, name: string, tools: CheckTools): Promise<{ ok: true; parsed: ParsedFile } | { ok: false; problems: Problem[] }> {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, uniqueKeys: true, prettyErrors: false });
  const problems: Problem[] = [];
  const pos = (offset: number | undefined) => {
    const p = lc.linePos(offset ?? 0);
    return { line: p.line, col: p.col };
  };
  if (doc.errors.length) {
    // A tab in the indentation sends the parser astray for the rest of the file: say that one thing.
    const lines = text.split('\n');
    const line = lines.findIndex((l) => /^[ ]*\t/.test(l));
    if (line >= 0) {
      const col = lines[line]!.indexOf('\t') + 1;
      return { ok: false, problems: [{ line: line + 1, col, at: '', message: 'a tab: YAML forbids tabs for indentation; indent with spaces' }] };
    }
  }
  for (const e of doc.errors) {
    const p = pos(e.pos[0]);
    problems.push({ ...p, at: '', message: e.message.split('\n')[0]! });
  }
  if (problems.length) return { ok: false, problems };
  const positions = new Map<string, { line: number; col: number }>();
  const references: Reference[] = [];
  const problem = (node: YamlNode | null | undefined, parts: ReadonlyArray<string | number>, message: string, fallback?: number) => {
    problems.push({ ...pos(node?.range?.[0] ?? fallback), at: pathText(parts), message });
  };

  // Cron expressions are checked together once the walk is done (croner loads asynchronously).
  const crons: Array<{ node: YamlNode; parts: Array<string | number>; expr: string }> = [];
  const walk = (node: YamlNode | null | undefined, spec: FieldNode, parts: Array<string | number>): void => {
    positions.set(pathText(parts), pos(node?.range?.[0]));
    const kind = describe(node);
    const scalar = isScalar(node) ? node.value : undefined;
    switch (spec.t) {
      case 'string': {
        if (!isScalar(node) || typeof scalar !== 'string') {
          if (isScalar(node) && (typeof scalar === 'number' || typeof scalar === 'boolean') && !spec.enum && !spec.secret && !spec.check) {
            node.value = String(scalar); // a bare 3 for a bucket name is meant as text
            return;
          }
          return problem(node, parts, `must be a string${spec.enum ? ` (one of ${spec.enum.join(', ')})` : ''}, not ${kind}`);
        }
        if (spec.enum && spec.aliases && !spec.enum.includes(scalar)) {
          // Either spelling, any case (`AWS`, `aws`, `cloud_a`): read as the value (issue 30 §1).
          const lower = scalar.trim().toLowerCase();
          const value = spec.enum.includes(lower) ? lower : Object.hasOwn(spec.aliases, lower) ? spec.aliases[lower] : undefined;
          if (value === undefined) return problem(node, parts, `"${scalar}" is not allowed: one of ${[...spec.enum, ...Object.keys(spec.aliases)].join(', ')}`);
          node.value = value;
          return;
        }
        if (spec.enum && !spec.enum.includes(scalar)) return problem(node, parts, `"${scalar}" is not allowed: one of ${spec.enum.join(', ')}`);
        if (spec.secret && !SECRET_REFERENCE.test(scalar)) return problem(node, parts, 'a secret is written as ${env:NAME} or ${file:path}, never as its value');
        if (spec.secret) return checkSecret(node, parts, scalar);
        if (spec.check === 'timezone') {
          const err = tools.timezoneError(scalar);
          if (err) problem(node, parts, err);
        }
        if (spec.check === 'cron') crons.push({ node, parts, expr: scalar });
        if (spec.check === 'duration' || spec.check === 'sql' || spec.check === 'expect') {
          const err = valueError(spec.check, scalar);
          if (err) problem(node, parts, err);
        }
        return;
      }
      case 'integer':
        if (!isScalar(node) || typeof scalar !== 'number' || !Number.isInteger(scalar)) return problem(node, parts, `must be a whole number, not ${kind}`);
        if (spec.min !== undefined && scalar < spec.min) return problem(node, parts, `must be at least ${spec.min}, not ${scalar}`);
        if (spec.max !== undefined && scalar > spec.max) return problem(node, parts, `must be at most ${spec.max}, not ${scalar}`);
        return;
      case 'boolean':
        if (!isScalar(node) || typeof scalar !== 'boolean') return problem(node, parts, `must be true or false, not ${kind}`);
        return;
      case 'scalar':
        if (!isScalar(node) || !['string', 'number', 'boolean'].includes(typeof scalar)) return problem(node, parts, `must be a string, number or true/false, not ${kind}`);
        if (typeof scalar === 'string' && scalar.startsWith('${')) {
          if (!SECRET_REFERENCE.test(scalar)) return problem(node, parts, 'a reference is written ${env:NAME} or ${file:path}');
          checkSecret(node, parts, scalar);
        }
        return;
      case 'array':
        if (!isSeq(node)) return problem(node, parts, `must be a list, not ${kind}`);
        node.items.forEach((item, i) => walk(item as YamlNode, spec.items, [...parts, i]));
        return;
      case 'map':
        if (!isMap(node)) return problem(node, parts, `must be a mapping of names, not ${kind}`);
        for (const pair of node.items) {
          const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
          if (key === undefined || key === '') {
            problem(pair.key as YamlNode, parts, 'a name must be a non-empty string');
            continue;
          }
          walk(pair.value as YamlNode, spec.values, [...parts, key]);
        }
        return;
      case 'object': {
        if (!isMap(node)) return problem(node, parts, `must be a mapping, not ${kind}`);
        const seen = new Set<string>();
        for (const pair of node.items) {
          const key = isScalar(pair.key) ? String(pair.key.value) : '';
          seen.add(key);
          const field = spec.fields[key];
          if (!field) {
            const near = nearest(key, Object.keys(spec.fields));
            problem(pair.key as YamlNode, [...parts, key], `unknown key "${key}"${near ? `: did you mean "${near}"?` : ''} (allowed: ${Object.keys(spec.fields).join(', ')})`);
            continue;
          }
          walk(pair.value as YamlNode, field.node, [...parts, key]);
        }
        for (const [key, field] of Object.entries(spec.fields)) {
          if (field.required && !seen.has(key)) problem(node, parts, `"${key}" is required`);
        }
        if (spec.oneOf) {
          const given = spec.oneOf.filter((k) => seen.has(k));
          if (given.length !== 1) problem(node, parts, `give exactly one of ${spec.oneOf.join(', ')}${given.length ? ` (found ${given.join(', ')})` : ''}`);
        }
        return;
      }
    }
  };

  const checkSecret = (_node: YamlNode, parts: ReadonlyArray<string | number>, ref: string) => {
    references.push({ ref, at: pathText(parts) });
  };

  if (doc.contents === null) {
    problems.push({ line: 1, col: 1, at: '', message: 'the file is empty: it needs at least "version: 1"' });
    return { ok: false, problems };
  }
  walk(doc.contents as YamlNode, FILE_NODE, []);
  for (const c of crons) {
    if (CRON_MACROS[c.expr.trim().toLowerCase()]) continue;
    const err = c.expr.trim().split(/\s+/).length !== 5 ? `must be a 5-field cron expression (minute hour day month weekday) or one of ${Object.keys(CRON_MACROS).join(', ')}` : await tools.cronError(c.expr);
    if (err) problem(c.node, c.parts, `"${c.expr}" is not a valid cron expression: ${err}`);
  }
  if (problems.length) return { ok: false, problems: problems.sort((a, b) => a.line - b.line || a.col - b.col) };
  const file = doc.toJS({ maxAliasCount: 100 }) as BackupsFile;
  return {
    ok: true,
    parsed: {
      file,
      name,
      references,
      where: (at) => positions.get(at) ?? { line: 1, col: 1 },
    },
  };
}

/** A comparison of an assurance validation: an operator (or none: equal) and the value. */
export const EXPECT = /^\s*(=|==|!=|<>|>=|<=|>|<)?\s*(\S(?:.*\S)?)\s*$/;

/** What is wrong with a duration, a validation's SQL or its expected value; undefined when nothing. */
export function valueError(check: 'duration' | 'sql' | 'expect', value: string): string | undefined {
  if (check === 'duration') {
    const ms = parseDuration(value);
    return ms === undefined || ms <= 0 ? `"${value}" is not a duration: write it as 30m, 12h, 1d or 2w` : undefined;
  }
  if (check === 'expect') return EXPECT.test(value) && !/^\s*[=!<>]+\s*$/.test(value) ? undefined : `"${value}" is not an expected value: a value ("42") or a comparison ("> 0", ">= 1000")`;
  const sql = value.trim().replace(/;\s*$/, '');
  if (!/^(select|with)\b/i.test(sql)) return 'must be one SELECT statement (or WITH ... SELECT): an assertion reads, it never changes the restored data';
  if (sql.includes(';')) return 'must be one statement: no ";" inside';
  return undefined;
}

function describe(node: YamlNode | null | undefined): string {
  if (node === null || node === undefined) return 'nothing';
  if (isMap(node)) return 'a mapping';
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) {
    if (node.value === null) return 'nothing';
    if (typeof node.value === 'string') return `"${node.value}"`;
    return String(node.value);
  }
  return 'an alias';
}

function nearest(word: string, candidates: readonly string[]): string | undefined {
  let best: { c: string; d: number } | undefined;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d <= Math.max(2, Math.floor(c.length / 3)) && (!best || d < best.d)) best = { c, d };
  }
  return best?.c;
}

/**
 * The value of a `${env:NAME}` / `${file:path}` reference (a file's text,
 * trimmed of its final newline). `where` says the file to read: the plan
 * checked it (src/ascode/references.ts) before anything was sent.
 */
export async function resolveSecret(ref: string, env: NodeJS.ProcessEnv, where: (ref: string) => string): Promise<string> {
  const m = SECRET_REFERENCE.exec(ref);
  if (!m) return ref;
  if (m[1] === 'env') return env[m[2]!] ?? '';
  return (await readFile(where(ref), 'utf8')).replace(/\r?\n$/, '').trim();
}
