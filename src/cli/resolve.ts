// A name wherever an id goes (issue 13): `jobs get "shop mysql"`, `--server web-1`,
// `--storage backups-eu:1`. One resolver for every command, `status --job` and
// whoever else needs it (backups-as-code): a value shaped like the resource's
// id is taken as the id and never looked up; anything else is a name, looked
// up through the resource's list endpoint (with its name filter where there is
// one): an exact match first, then a unique case-insensitive one. Two or more
// matches exit 2 listing them (id and name); none exits 5.
import type { Client, RequestSpec } from './types.js';
import { CliError, ExitCode, UsageError } from '../errors.js';

/** Resources whose records have names a user may type instead of the id. */
export type NamedKind = 'jobs' | 'servers' | 'ssh-keys' | 'storage' | 'accounts' | 'droplets' | 'volumes' | 'encryption-keys';

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
}

export const NAMED_KINDS: Readonly<Record<NamedKind, NamedKindInfo>> = {
  jobs: { singular: 'job', plural: 'jobs', id: 'uuid', list: '/jobs', listCommand: 'backupctl jobs list' },
  servers: { singular: 'server', plural: 'servers', id: 'integer', list: '/servers', nameFilter: true, listCommand: 'backupctl servers list' },
  'ssh-keys': { singular: 'SSH key', plural: 'SSH keys', id: 'integer', list: '/ssh-keys', listCommand: 'backupctl ssh-keys list' },
  storage: { singular: 'storage destination', plural: 'storage destinations', id: 'integer', list: '/storage', listCommand: 'backupctl storage list' },
  accounts: { singular: 'account', plural: 'accounts', id: 'integer', list: '/snapshots/accounts', listCommand: 'backupctl accounts list' },
  droplets: { singular: 'droplet', plural: 'droplets', id: 'integer', list: '/cloud_i/droplets', nameFilter: true, listCommand: 'backupctl droplets list' },
  volumes: { singular: 'volume', plural: 'volumes', id: 'uuid', list: '/cloud_i/volumes', nameFilter: true, listCommand: 'backupctl volumes list' },
  'encryption-keys': { singular: 'encryption key', plural: 'encryption keys', id: 'integer', listCommand: 'backupctl jobs get <job> --json' },
};

export function isNamedKind(kind: string): kind is NamedKind {
  return Object.hasOwn(NAMED_KINDS, kind);
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
    readonly kind: NamedKind,
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
  if (!found.length) {
    throw new CliError(`no ${info.singular} with the id or name "${name}"`, ExitCode.notFound, [`  See ${info.listCommand}.`]);
  }
  const width = Math.max(...found.map((r) => String(r.id).length));
  throw new UsageError(`"${name}"${where} names ${found.length} ${info.plural}: give the id`, [
    ...found.map((r) => `  ${String(r.id).padEnd(width)}  ${String(r.name)}`),
  ]);
}

/** The request that lists the candidates for `name` (one page of 100 at a time). */
export function lookupRequest(kind: NamedKind, name: string): RequestSpec | undefined {
  const info = NAMED_KINDS[kind];
  if (!info.list) return undefined;
  return { method: 'GET', path: info.list, query: { page_size: 100, ...(info.nameFilter ? { name } : {}) } };
}

export interface ResolveOptions {
  signal?: AbortSignal;
  /** Called with each look-up request before it is sent (--dry-run lists them on stderr). */
  onLookup?: (req: RequestSpec) => void;
  /** The flag or argument, for messages. */
  label?: string;
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
      '  Give the id.',
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
  const idOf = (ref: NameRef) => {
    const key = `${ref.kind}\0${ref.name}`;
    let p = ids.get(key);
    if (!p) ids.set(key, (p = resolveId(c, ref.kind, ref.name, { ...opts, label: ref.label })));
    return p;
  };
  // One look-up at a time: the order of the requests (and of --dry-run's lines) follows the command line.
  for (const ref of refs) await idOf(ref);
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
