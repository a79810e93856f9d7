// A name wherever an id goes (issue 13): `jobs get "shop mysql"`, `--server web-1`,
// `--storage backups-eu:1`. One resolver for every command, `status --job` and
// whoever else needs it (backups-as-code): a value shaped like the resource's
// id is taken as the id and never looked up; anything else is a name, looked
// up through the resource's list endpoint (with its name filter where there is
// one): an exact match first, then a unique case-insensitive one. Two or more
// matches exit 2 listing them (id and name); none exits 5.
//
// A UUID id is also taken by a unique prefix of 6 or more characters (issue 25),
// as docker and git take a short id: a table on a terminal shows the first 8.
// Backups and restore jobs have no names but take a prefix too (PrefixKind).
import type { Client, RequestSpec } from '../contract/context.js';
import { CliError, ExitCode, UsageError } from '../errors.js';
import { didYouMean, suggestNames } from '../util/suggest.js';

import type { NamedKind } from '../contract/spec.js';


export interface NamedKindInfo {
  /** "job", "SSH key": for messages. */
  singular: string;
  plural: string;
  /** What an id looks like. */
  id: 'integer' | 'uuid';
  /** The list endpoint (relative to /v1) the names are read from; none for encryption keys (the service lists none). */
  list?: string;
  /** The list endpoint filters by a similar name (`?name=`), which narrows the pages read. */
  nameFilter?: boolean;
  /** The command that lists them, for hints. */
  listCommand: string;
  /** Where to find an id when the service lists none (encryption keys). */
  idHint?: readonly string[];
}

export const NAMED_KINDS: Readonly<Record<NamedKind, NamedKindInfo>> = {
  jobs: { singular: 'job', plural: 'jobs', id: 'uuid', list: '/jobs', listCommand: 'backupctl jobs list' },
  servers: { singular: 'server', plural: 'servers', id: 'integer', list: '/servers', nameFilter: true, listCommand: 'backupctl servers list' },
  'ssh-keys': { singular: 'SSH key', plural: 'SSH keys', id: 'integer', list: '/ssh-keys', listCommand: 'backupctl ssh-keys list' },
  storage: { singular: 'storage destination', plural: 'storage destinations', id: 'integer', list: '/storage', listCommand: 'backupctl storage list' },
  accounts: { singular: 'account', plural: 'accounts', id: 'integer', list: '/snapshots/accounts', listCommand: 'backupctl accounts list' },
  droplets: { singular: 'droplet', plural: 'droplets', id: 'integer', list: '/cloud_i/droplets', nameFilter: true, listCommand: 'backupctl droplets list' },
  volumes: { singular: 'volume', plural: 'volumes', id: 'uuid', list: '/cloud_i/volumes', nameFilter: true, listCommand: 'backupctl volumes list' },
  'encryption-keys': {
    singular: 'encryption key',
    plural: 'encryption keys',
    id: 'integer',
    listCommand: 'backupctl jobs get <job> --json',
    // The service takes only the integer id (POST /v1/jobs/{id}/encryption-key), and answers a new key without one.
    idHint: [
      '  The service takes the key\'s id, not its name, and lists no keys. Find the id in the service\'s web dashboard',
      '  (its encryption keys page), in the answer to `backupctl encryption-keys create` where the service gives one,',
      '  or in `backupctl jobs get <job> --json` (encryption_key_id) of a job the key is attached to.',
    ],
  },
};

export function isNamedKind(kind: string): kind is NamedKind {
  return Object.hasOwn(NAMED_KINDS, kind);
}

/** Resources with UUID ids and no names, whose ids are taken by a unique prefix. */
export type PrefixKind = 'backups' | 'restores';

export const PREFIX_KINDS: Readonly<Record<PrefixKind, { singular: string; plural: string; listCommand: string }>> = {
  backups: { singular: 'backup', plural: 'backups', listCommand: 'backupctl jobs backup list <job>' },
  restores: { singular: 'restore job', plural: 'restore jobs', listCommand: 'backupctl restores list' },
};

export function isPrefixKind(kind: string): kind is PrefixKind {
  return Object.hasOwn(PREFIX_KINDS, kind);
}

/** What a NameRef stands for: a named resource, or one whose UUID is given by a prefix. */
export type RefKind = NamedKind | PrefixKind;

/** Hex digits and dashes, 6 (the shortest prefix taken for a whole UUID) to 35 (a whole UUID has 36): maybe the start of a UUID. */
const ID_PREFIX = /^[0-9a-f][0-9a-f-]{5,34}$/i;

/** Whether `value` may be the start of a UUID (6 or more of its characters). */
export function looksLikeIdPrefix(value: string): boolean {
  return ID_PREFIX.test(value.trim());
}

/**
 * The records whose id starts with `prefix` (case-insensitive): one is the record meant;
 * several exit 2 listing them, as an ambiguous name does.
 */
function pickByPrefix<T extends NamedRecord>(records: readonly T[], prefix: string, what: { singular: string; plural: string }, label?: string, describe?: (r: T) => string): T[] {
  const p = prefix.trim().toLowerCase();
  const found = records.filter((r) => typeof r.id === 'string' && r.id.toLowerCase().startsWith(p));
  if (found.length > 1) {
    const width = Math.max(...found.map((r) => String(r.id).length));
    const where = label ? ` (${label})` : '';
    throw new UsageError(`"${prefix}"${where} is the start of ${found.length} ${what.plural}' ids: give more of the id`, [
      ...found.map((r) => `  ${String(r.id).padEnd(width)}  ${describe ? describe(r) : String(r.name ?? '')}`.trimEnd()),
    ]);
  }
  return found;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Digits (with an optional sign, so `-3` is refused as a bad id rather than looked up as a name). */
const INTEGER = /^[+-]?\d+$/;

/** Whether `value` is shaped like an id of `kind` (then it is the id, never a name). An empty value counts as an id: it is refused as one. */
export function looksLikeId(kind: NamedKind, value: string): boolean {
  const v = value.trim();
  if (v === '') return true;
  return NAMED_KINDS[kind].id === 'uuid' ? UUID.test(v) : INTEGER.test(v);
}

/** A name given where an id goes, waiting to be looked up (see resolveNames). */
export class NameRef {
  constructor(
    readonly kind: RefKind,
    readonly name: string,
    /** The flag or argument it came from, for messages: `--server`, `<job>`. */
    readonly label: string,
  ) {}
}

export interface NamedRecord {
  id?: unknown;
  name?: unknown;
}

/**
 * The one record of `records` that `name` names: exact match first, then a
 * unique case-insensitive match. Throws UsageError (exit 2) listing the
 * candidates when several match, CliError exit 5 when none does.
 */
export function pickByName<T extends NamedRecord>(records: readonly T[], name: string, kind: NamedKind, label?: string): T {
  const info = NAMED_KINDS[kind];
  const named = records.filter((r) => typeof r.name === 'string');
  let found = named.filter((r) => r.name === name);
  if (!found.length) {
    const lower = name.toLowerCase();
    found = named.filter((r) => (r.name as string).toLowerCase() === lower);
  }
  const where = label ? ` (${label})` : '';
  if (found.length === 1) return found[0]!;
  // No name matches: the start of a UUID id (6 or more characters) names the one record whose id it begins.
  if (!found.length && info.id === 'uuid' && looksLikeIdPrefix(name)) found = pickByPrefix(records, name, info, label);
  if (found.length === 1) return found[0]!;
  if (!found.length) {
    const names = named.map((r) => r.name as string);
    throw new CliError(`no ${info.singular} with the id or name "${name}"`, ExitCode.notFound, [...didYouMean(suggestNames(name, names)), `  See ${info.listCommand}.`]);
  }
  const width = Math.max(...found.map((r) => String(r.id).length));
  throw new UsageError(`"${name}"${where} names ${found.length} ${info.plural}: give the id`, [
    ...found.map((r) => `  ${String(r.id).padEnd(width)}  ${String(r.name)}`),
  ]);
}

/** The request that lists the candidates for `name` (one page of 100 at a time); an id prefix reads them all, unfiltered. */
export function lookupRequest(kind: NamedKind, name: string): RequestSpec | undefined {
  const info = NAMED_KINDS[kind];
  if (!info.list) return undefined;
  const filtered = info.nameFilter && !(info.id === 'uuid' && looksLikeIdPrefix(name));
  return { method: 'GET', path: info.list, query: { page_size: 100, ...(filtered ? { name } : {}) } };
}

export interface ResolveOptions {
  signal?: AbortSignal;
  /** Called with each look-up request before it is sent (--dry-run lists them on stderr). */
  onLookup?: (req: RequestSpec) => void;
  /** The flag or argument, for messages. */
  label?: string;
  /** For a backup's prefix: the job (its id) whose backups are read; without it, every job's. */
  job?: string;
}

/**
 * The whole UUID of the backup or restore job whose id starts with `prefix`:
 * read from the job's backups (or every job's), or the restore jobs.
 */
export async function resolvePrefix(client: Pick<Client, 'pages'>, kind: PrefixKind, prefix: string, opts: ResolveOptions = {}): Promise<string> {
  const info = PREFIX_KINDS[kind];
  const records: Array<NamedRecord & Record<string, unknown>> = [];
  const read = async (req: RequestSpec, extra: Record<string, unknown> = {}) => {
    opts.onLookup?.(req);
    for await (const page of client.pages(req, { all: true, signal: opts.signal })) {
      for (const r of page.records) if (r && typeof r === 'object') records.push({ ...(r as Record<string, unknown>), ...extra });
    }
  };
  if (kind === 'restores') {
    await read({ method: 'GET', path: '/restore-jobs' });
  } else if (opts.job !== undefined) {
    await read({ method: 'GET', path: `/jobs/${encodeURIComponent(opts.job)}/backups`, query: { page_size: 100 } });
  } else {
    const jobs: NamedRecord[] = [];
    const req: RequestSpec = { method: 'GET', path: '/jobs', query: { page_size: 100 } };
    opts.onLookup?.(req);
    for await (const page of client.pages(req, { all: true, signal: opts.signal })) for (const r of page.records) if (r && typeof r === 'object') jobs.push(r as NamedRecord);
    for (const job of jobs) {
      if (typeof job.id === 'string') await read({ method: 'GET', path: `/jobs/${encodeURIComponent(job.id)}/backups`, query: { page_size: 100 } }, { job: job.name });
    }
  }
  const describe = (r: Record<string, unknown>) => [r.job, r.status, typeof r.created_at === 'string' ? r.created_at.replace('T', ' ').slice(0, 16) : undefined].filter((x) => typeof x === 'string' && x !== '').join('  ');
  const found = pickByPrefix(records, prefix, info, opts.label, describe);
  if (found.length === 1) return String(found[0]!.id);
  throw new CliError(`no ${info.singular} with an id starting "${prefix}"`, ExitCode.notFound, [`  See ${info.listCommand}.`]);
}

/**
 * The id that `value` stands for: the value itself when it is shaped like an
 * id (a number for integer ids), else the id of the record it names.
 */
export async function resolveId(client: Pick<Client, 'pages'>, kind: NamedKind, value: string, opts: ResolveOptions = {}): Promise<string | number> {
  const info = NAMED_KINDS[kind];
  if (looksLikeId(kind, value)) return info.id === 'integer' ? Number(value.trim()) : value.trim();
  const req = lookupRequest(kind, value);
  if (!req) {
    throw new UsageError(`"${value}"${opts.label ? ` (${opts.label})` : ''} is not an ${info.singular} id, and ${info.plural} cannot be looked up by name: the service does not list them`, [
      ...(info.idHint ?? ['  Give the id.']),
    ]);
  }
  opts.onLookup?.(req);
  const records: NamedRecord[] = [];
  for await (const page of client.pages(req, { all: true, signal: opts.signal })) {
    for (const r of page.records) if (r && typeof r === 'object') records.push(r as NamedRecord);
  }
  const id = pickByName(records, value, kind, opts.label).id;
  if (typeof id === 'number') return id;
  if (typeof id === 'string') return info.id === 'integer' && INTEGER.test(id) ? Number(id) : id;
  throw new CliError(`the ${info.singular} named "${value}" has no id in the service's answer`, ExitCode.refused);
}

/**
 * Replaces every NameRef in `values` (top level, in arrays and one level of
 * objects in arrays: `--storage`'s items) by the id it names. Each distinct name is
 * looked up once.
 */
export async function resolveNames(values: Record<string, unknown>, client: () => Promise<Pick<Client, 'pages'>>, opts: Omit<ResolveOptions, 'label'> = {}): Promise<void> {
  const refs: NameRef[] = [];
  const visit = (v: unknown, depth: number): void => {
    if (v instanceof NameRef) refs.push(v);
    else if (Array.isArray(v) && depth < 3) v.forEach((x) => visit(x, depth + 1));
    else if (v && typeof v === 'object' && depth < 3) Object.values(v).forEach((x) => visit(x, depth + 1));
  };
  visit(values, 0);
  if (!refs.length) return;
  const c = await client();
  const ids = new Map<string, Promise<string | number>>();
  let job: string | undefined;
  const idOf = (ref: NameRef) => {
    const key = `${ref.kind}\0${ref.name}`;
    let p = ids.get(key);
    if (!p) {
      const kind = ref.kind;
      p = isPrefixKind(kind) ? resolvePrefix(c, kind, ref.name, { ...opts, label: ref.label, job }) : resolveId(c, kind, ref.name, { ...opts, label: ref.label });
      ids.set(key, p);
    }
    return p;
  };
  // One look-up at a time: the order of the requests (and of --dry-run's lines) follows the command line.
  // Names first, then id prefixes of backups, which read the backups of the job on the same line (its id by then).
  for (const ref of refs) if (!isPrefixKind(ref.kind)) await idOf(ref);
  const jobValue = values.job_id instanceof NameRef ? await idOf(values.job_id) : values.job_id;
  job = typeof jobValue === 'string' ? jobValue : undefined;
  for (const ref of refs) if (isPrefixKind(ref.kind)) await idOf(ref);
  const replace = async (v: unknown, depth: number): Promise<unknown> => {
    if (v instanceof NameRef) return idOf(v);
    if (Array.isArray(v) && depth < 3) return Promise.all(v.map((x) => replace(x, depth + 1)));
    if (v && typeof v === 'object' && depth < 3) {
      const o = v as Record<string, unknown>;
      for (const [k, x] of Object.entries(o)) o[k] = await replace(x, depth + 1);
      return o;
    }
    return v;
  };
  for (const [k, v] of Object.entries(values)) values[k] = await replace(v, 1);
}
