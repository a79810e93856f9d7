// Checks every flag and argument with zod before anything is sent. A bad
// value is a UsageError (exit 2) naming the flag and what it accepts.
// fs.promises, not node:fs/promises: that module costs ~3 ms to load, and only a file flag reads.
import { promises as fsp } from 'node:fs';
import * as z from 'zod/mini';
import type { Readable } from 'node:stream';
import type { CommandSpec, ParamSpec } from '../contract/spec.js';
import { UsageError } from '../errors.js';
import { apiName, effectiveParams, flagLabel, flagName, optionKey } from './params.js';
import { calendarProblem, parseDatetime, parseDuration } from '../util/time.js';
import { NameRef, isPrefixKind, looksLikeId, looksLikeIdPrefix } from './resolve.js';
import { CRON_MACROS, cronFields } from '../util/cron-macros.js';

const CRON_FIELDS = /^\s*\S+\s+\S+\s+\S+\s+\S+\s+\S+\s*$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// zod/mini: the same checks as zod's classic API at a tenth of the bundle, so
// checking flags does not slow every command's start (see bench/).
type Check = z.ZodMiniType<unknown, string>;

/** A string check whose failure message says what the flag accepts. */
const text = (ok: (s: string) => boolean, message: string): Check => z.string().check(z.refine(ok, message));

/** A string turned into a value, or a failure with `message` (which may depend on the text). */
function convert(to: (s: string) => unknown, message: string | ((s: string) => string)): Check {
  return z.pipe(
    z.string(),
    z.transform((s: string, ctx) => {
      const v = to(s);
      if (v === undefined) {
        ctx.issues.push({ code: 'custom', message: typeof message === 'string' ? message : message(s), input: s });
        return z.NEVER;
      }
      return v;
    }),
  );
}

function schemaFor(p: ParamSpec): Check {
  const range = p.min !== undefined && p.max !== undefined ? ` (allowed: ${p.min}..${p.max})` : '';
  const inBounds = (n: number): string | undefined => {
    if (p.min !== undefined && n < p.min) return `must be at least ${p.min}${range}`;
    if (p.max !== undefined && n > p.max) return `must be at most ${p.max}${range}`;
    return undefined;
  };
  const numeric = (re: RegExp, what: string): Check =>
    z.pipe(
      z.string(),
      z.transform((s: string, ctx) => {
        const t = s.trim();
        const n = Number(t);
        const problem = !re.test(t) ? what : !Number.isSafeInteger(Math.trunc(n)) ? 'is too large' : inBounds(n);
        if (problem) {
          ctx.issues.push({ code: 'custom', message: problem, input: s });
          return z.NEVER;
        }
        return n;
      }),
    );
  switch (p.type) {
    case 'string':
      if (p.pattern) {
        const re = new RegExp(`^(?:${p.pattern.source})$`, 'i');
        return convert((s) => (re.test(s.trim()) ? s.trim().toLowerCase() : undefined), `must be ${p.pattern.text}`);
      }
      return text((s) => s.trim() !== '', 'must not be empty');
    case 'integer':
      return numeric(/^-?\d+$/, 'must be a whole number');
    case 'number':
      return numeric(/^-?\d+(\.\d+)?$/, 'must be a number');
    case 'enum':
      if (p.aliases) return convert((s) => enumValue(p, s), `must be one of: ${enumWords(p).join(', ')}`);
      return text((s) => (p.values ?? []).includes(s), `must be one of: ${(p.values ?? []).join(', ')}`);
    case 'sort': {
      const allowed = p.values ?? [];
      return text((s) => allowed.includes(s.replace(/^-/, '')), `must be one of: ${allowed.join(', ')} (prefix - for descending)`);
    }
    case 'uuid':
      if (p.keywords?.length) {
        const words = p.keywords;
        return convert(
          (s) => (words.includes(s.trim().toLowerCase()) ? s.trim().toLowerCase() : UUID.test(s.trim()) ? s : undefined),
          `must be a UUID such as 3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c${p.complete !== undefined && isPrefixKind(p.complete) ? ', or its first 6 or more characters' : ''}, or ${words.join(', ')}`,
        );
      }
      return text((s) => UUID.test(s.trim()), `must be a UUID such as 3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c${p.complete !== undefined && isPrefixKind(p.complete) ? ', or its first 6 or more characters' : ''}`);
    case 'datetime':
      return convert(parseDatetime, (s) => {
        const problem = calendarProblem(s);
        return problem ? `is not a real date and time: ${problem}` : 'must be an ISO 8601 datetime (2026-01-31T02:00:00Z) or an age such as 90m, 24h, 7d, 2w';
      });
    case 'duration': {
      const least = p.min === undefined ? 0 : p.min;
      return convert(
        (s) => {
          const ms = parseDuration(s);
          return ms !== undefined && ms >= least ? ms : undefined;
        },
        (s) =>
          parseDuration(s) === undefined
            ? 'must be a duration such as 500ms, 30s, 5m, 2h, 1d'
            : `must be at least ${least % 1000 ? `${least}ms` : `${least / 1000}s`}`,
      );
    }
    case 'cron':
      // A macro (@daily, @weekly, ...) becomes the 5 fields the service takes, as in a backups file.
      return convert(
        (s) => (CRON_FIELDS.test(cronFields(s)) ? cronFields(s).trim() : undefined),
        `must be 5 fields: minute hour day-of-month month day-of-week, such as "30 2 * * *", or one of ${Object.keys(CRON_MACROS).join(', ')}`,
      );
    case 'url':
      return text((s) => /^https?:\/\/[^\s/?#]+\S*$/i.test(s.trim()) && URL.canParse(s.trim()), 'must be an http:// or https:// URL');
    case 'timezone':
      return convert(canonicalTimezone, 'must be an IANA time zone such as UTC, Europe/Paris or America/New_York');
    case 'tags': {
      const allowed = p.values ?? ['manual', 'hourly', 'daily', 'weekly', 'monthly'];
      return convert((s) => {
        const names = s.split(',').map((t) => t.trim()).filter(Boolean);
        if (!names.length || names.some((n) => !allowed.includes(n))) return undefined;
        return Object.fromEntries(names.map((n) => [n, p.tagValue ?? 1]));
      }, `takes a comma-separated list of: ${allowed.join(', ')}`);
    }
    case 'boolean':
    case 'kv':
    case 'storage':
    case 'json-file':
    case 'text-file':
      return z.string();
  }
}

/** An enum value with aliases: the value itself or an alias, case-insensitively, as the value (token). */
function enumValue(p: ParamSpec, s: string): string | undefined {
  const t = s.trim().toLowerCase();
  const values = p.values ?? [];
  if (values.includes(t)) return t;
  const aliased = p.aliases && Object.hasOwn(p.aliases, t) ? p.aliases[t] : undefined;
  return aliased !== undefined && values.includes(aliased) ? aliased : undefined;
}

/** The words an enum takes, aliases after their value: `cloud_a|aws`. */
export function enumWords(p: Pick<ParamSpec, 'values' | 'aliases'>): string[] {
  const byValue = new Map<string, string[]>();
  for (const [alias, value] of Object.entries(p.aliases ?? {})) byValue.set(value, [...(byValue.get(value) ?? []), alias]);
  return (p.values ?? []).map((v) => [v, ...(byValue.get(v) ?? [])].join('|'));
}

/** The zone as the time zone database spells it (`europe/paris` -> `Europe/Paris`), or undefined when there is no such zone. */
export function canonicalTimezone(zone: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone.trim() }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/**
 * What croner (which computes the next runs in `status`) finds wrong with a
 * 5-field expression: a value out of range (`99 2 * * *`) or a date that
 * never comes (`0 0 31 2 *`). Searched from a fixed instant, so the answer
 * never depends on the clock.
 */
export async function cronProblem(expression: string): Promise<string | undefined> {
  const { Cron } = await import('croner');
  try {
    const next = new Cron(expression.trim(), { paused: true, timezone: 'UTC' }).nextRun(new Date(Date.UTC(2000, 0, 1)));
    return next ? undefined : 'it never runs (no such date)';
  } catch (err) {
    const message = (err as Error).message.replace(/^Cron\w*:\s*/, '');
    return message.charAt(0).toLowerCase() + message.slice(1);
  }
}

function fail(p: ParamSpec, raw: string, message: string): never {
  const shown = raw.length > 60 ? `${raw.slice(0, 57)}...` : raw;
  throw new UsageError(`invalid value ${JSON.stringify(shown)} for ${flagLabel(p)}: ${message}`, p.hint ? [`  ${p.hint}`] : []);
}

function check(p: ParamSpec, raw: string): unknown {
  const r = schemaFor(p).safeParse(raw);
  if (!r.success) fail(p, raw, r.error.issues[0]?.message ?? 'is not valid');
  return r.data;
}

function parseKv(p: ParamSpec, items: string[]): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const item of items) {
    const i = item.indexOf('=');
    if (i <= 0) fail(p, item, 'must be key=value');
    const v = item.slice(i + 1);
    // Config values are strings on the wire except numbers (compression_level: 6).
    out[item.slice(0, i)] = /^-?\d+$/.test(v) && v.length < 16 ? Number(v) : v;
  }
  return out;
}

/** `12`, `12:1`, or with names (p.names): `backups-eu`, `backups-eu:2`; a name is looked up before sending. */
function parseStorage(p: ParamSpec, items: string[]): Array<{ storage_id: number | NameRef; priority: number }> {
  const seen = new Set<string>();
  return items.map((item, index) => {
    const m = /^(.+?)(?::(\d+))?$/.exec(item.trim());
    const ref = m?.[1]!.trim() ?? '';
    // `12:x` is a mistyped id and priority, not a name.
    const byName = p.names !== undefined && !looksLikeId(p.names, ref) && !/^\d+:/.test(ref);
    if (!m || (!byName && !/^\d+$/.test(ref))) {
      fail(p, item, `must be a storage id${p.names ? ' or name' : ''}, optionally with a priority: 12 or 12:1`);
    }
    const key = byName ? ref : String(Number(ref));
    if (seen.has(key)) fail(p, item, `storage ${key} is given twice`);
    seen.add(key);
    return { storage_id: byName ? new NameRef(p.names!, ref, flagLabel(p)) : Number(ref), priority: m[2] !== undefined ? Number(m[2]) : index + 1 };
  });
}

/**
 * A name given for an id (p.names), or the start of a backup's or restore job's UUID (6 or more
 * characters), kept for the resolver; anything else is checked as the id.
 */
function checkOrName(p: ParamSpec, raw: string): unknown {
  if (p.names !== undefined && !looksLikeId(p.names, raw)) return new NameRef(p.names, raw.trim(), flagLabel(p));
  if (p.type === 'uuid' && p.complete !== undefined && isPrefixKind(p.complete) && looksLikeIdPrefix(raw)) return new NameRef(p.complete, raw.trim(), flagLabel(p));
  return check(p, raw);
}

async function readSource(p: ParamSpec, source: string, stdin: () => Readable, used: { stdin: boolean }): Promise<string> {
  if (source === '-') {
    if (used.stdin) fail(p, source, 'standard input is already read by another flag');
    used.stdin = true;
    const chunks: Buffer[] = [];
    for await (const c of stdin()) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c));
    return Buffer.concat(chunks).toString('utf8');
  }
  try {
    return await fsp.readFile(source, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    fail(p, source, code === 'ENOENT' ? 'no such file' : `cannot read the file (${code ?? 'error'})`);
  }
}

export interface RawInput {
  /** Positional arguments in order. */
  positionals: readonly (string | undefined)[];
  /** commander's opts() of the command (camelCase keys). */
  options: Record<string, unknown>;
}

/**
 * Validated values keyed by the param's API name. Positionals are matched in
 * the order they appear in spec.params.
 */
export async function parseValues(
  spec: CommandSpec,
  raw: RawInput,
  /** Standard input, or an object whose `stdin` is read only if a flag says `-` (the IO: no stream is built otherwise). */
  input: Readable | { readonly stdin: Readable },
): Promise<Record<string, unknown>> {
  const stdin = () => ('pipe' in input && typeof input.pipe === 'function' ? (input as Readable) : (input as { stdin: Readable }).stdin);
  const params = effectiveParams(spec);
  const values: Record<string, unknown> = {};
  const used = { stdin: false };
  /** The params given on the command line (not filled in from a default). */
  const given: ParamSpec[] = [];
  let pos = 0;
  for (const p of params) {
    let rawValue: unknown = p.positional ? raw.positionals[pos++] : raw.options[optionKey(p)];
    if (rawValue !== undefined) given.push(p);
    if (rawValue === undefined) {
      if (p.default !== undefined) values[p.name] = p.type === 'duration' && typeof p.default === 'string' ? check(p, p.default) : p.default;
      continue;
    }
    if (p.type === 'boolean') {
      values[p.name] = rawValue === true;
      continue;
    }
    // A lone UTF-16 surrogate (possible from a caller's argv array, never from a shell, which
    // node decodes as UTF-8) cannot be sent: URL encoding throws on it.
    for (const item of Array.isArray(rawValue) ? rawValue : [rawValue]) {
      if (typeof item === 'string' && !(item as string & { isWellFormed(): boolean }).isWellFormed()) {
        fail(p, item, 'must be valid Unicode text (it holds a lone surrogate)');
      }
    }
    if (rawValue === false) {
      // --no-<flag> on a nullable param sends null.
      if (p.nullable) values[p.name] = null;
      continue;
    }
    if (p.type === 'kv' || p.type === 'storage') {
      const items = (Array.isArray(rawValue) ? rawValue : [rawValue]).map(String);
      values[p.name] = p.type === 'kv' ? parseKv(p, items) : parseStorage(p, items);
      continue;
    }
    if (p.type === 'json-file' || p.type === 'text-file') {
      const text = await readSource(p, String(rawValue), stdin, used);
      if (p.type === 'text-file') {
        if (!text.trim()) fail(p, String(rawValue), 'the file is empty');
        values[p.name] = text;
        continue;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (err) {
        fail(p, String(rawValue), `not valid JSON (${(err as Error).message})`);
      }
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) fail(p, String(rawValue), 'must hold a JSON object');
      values[p.name] = parsed;
      continue;
    }
    if (p.repeatable) {
      const items = (Array.isArray(rawValue) ? rawValue : [rawValue]).map(String);
      values[p.name] = items.map((i) => checkOrName(p, i));
      continue;
    }
    values[p.name] = checkOrName(p, String(rawValue));
  }
  refuseContradictions(given, values);
  for (const p of given) {
    const needed = p.needs && params.find((q) => q.name === p.needs);
    if (needed && !given.includes(needed)) {
      throw new UsageError(`${flagLabel(p)} needs ${flagLabel(needed)}`, [
        `  ${flagLabel(p)} applies only with ${flagLabel(needed)}: add ${flagLabel(needed)}, or leave ${flagLabel(p)} out.`,
      ]);
    }
    for (const [other, when] of Object.entries(p.refusedWhen ?? {})) {
      const v = values[other] ?? nestedFromFile(values, other);
      if (typeof v === 'string' && when.includes(v)) {
        const otherParam = params.find((q) => q.name === other);
        throw new UsageError(`${flagLabel(p)} does not go with ${otherParam ? flagLabel(otherParam) : other} ${v}: it takes no ${apiName(p)}`);
      }
    }
    if (p.type === 'cron' && typeof values[p.name] === 'string') {
      const problem = await cronProblem(values[p.name] as string);
      if (problem) fail(p, values[p.name] as string, problem);
    }
  }
  for (const p of params) {
    if (values[p.name] !== undefined) continue;
    if (p.required && nestedFromFile(values, p.name) === undefined) {
      throw new UsageError(p.positional ? `missing argument ${flagLabel(p)}` : `missing required flag ${flagLabel(p)}`, [
        `  ${flagLabel(p)}: ${p.description}${p.values && p.type === 'enum' ? ` (one of: ${enumWords(p).join(', ')})` : ''}`,
      ]);
    }
    if (p.requiredWhen) {
      for (const [other, when] of Object.entries(p.requiredWhen)) {
        const v = values[other] ?? nestedFromFile(values, other);
        // Another flag feeding the same field (--secret-file for --secret) supplies it too.
        const supplied = params.some((q) => apiName(q) === apiName(p) && values[q.name] !== undefined) || nestedFromFile(values, p.name) !== undefined;
        if (typeof v === 'string' && when.includes(v) && !supplied) {
          const otherParam = params.find((q) => q.name === other);
          throw new UsageError(
            `missing required flag ${flagLabel(p)}: ${otherParam ? flagLabel(otherParam) : other} ${v} needs it`,
          );
        }
      }
    }
  }
  return values;
}

/**
 * Two flags that feed one API field (`--tags` and `--without-tags`, `--secret`
 * and `--secret-file`) would silently let one win. Tag sets may share a field
 * as long as they name different tags.
 */
function refuseContradictions(given: ParamSpec[], values: Record<string, unknown>): void {
  for (const [i, a] of given.entries()) {
    for (const b of given.slice(i + 1)) {
      if (a.positional || b.positional || apiName(a) !== apiName(b) || apiName(a) === '.') continue;
      const va = values[a.name];
      const vb = values[b.name];
      const plain = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
      if (plain(va) && plain(vb)) {
        const both = Object.keys(va).filter((k) => k in vb);
        if (!both.length) continue;
        throw new UsageError(`${flagLabel(a)} and ${flagLabel(b)} both name ${both.join(', ')}: give each to one of them`);
      }
      throw new UsageError(`${flagLabel(a)} and ${flagLabel(b)} both set ${apiName(a)}: give one of them`);
    }
  }
}

/** A value that a --file / --credentials-file object supplies instead of a flag. */
function nestedFromFile(values: Record<string, unknown>, dotted: string): unknown {
  for (const [name, v] of Object.entries(values)) {
    if (!v || typeof v !== 'object' || Array.isArray(v)) continue;
    const prefix = name === '.' ? '' : `${name}.`;
    if (prefix && !dotted.startsWith(prefix)) continue;
    let cur: unknown = v;
    for (const part of dotted.slice(prefix.length).split('.')) {
      cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[part] : undefined;
    }
    if (cur !== undefined) return cur;
  }
  return undefined;
}

