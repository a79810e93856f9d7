// `backupctl __complete ids|names <source> [arg1] [arg2]`: what the scripts offer at a TAB, read
// from the service (one attempt, answered within 0.4 s of the start, cached for a minute), the
// config file's profiles, or the commands `schema` takes.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Client, Handler, RequestSpec } from '../contract/context.js';
import type { CompletionSource, Manifest } from '../contract/spec.js';
import { NAMED_KINDS, isNamedKind } from '../cli/resolve.js';
import { readManifest } from '../cli/startup.js';
import { sanitize } from '../output/sanitize.js';

/** How long fetched ids are offered again without asking the service. */
const CACHE_TTL_MS = 60_000;
/** Completion answers within this long of the process starting (the shell waits for it): node's start included. */
const ANSWER_WITHIN_MS = 400;
/** The look-up gets at least this long, however slow the start was. */
const MIN_LOOKUP_MS = 150;
/** After a failed look-up the service is not asked again for the same list for this long: every TAB would wait again. */
const DOWN_TTL_MS = 15_000;


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

/** Only plain ids reach a shell; names are sanitised (they are shown as descriptions). */
function toItems(records: unknown, describe: (r: Record<string, unknown>) => unknown = (r) => r.name): IdItem[] {
  if (!Array.isArray(records)) return [];
  const out: IdItem[] = [];
  for (const r of records) {
    const rec = (r ?? {}) as Record<string, unknown>;
    const id = typeof rec.id === 'number' || typeof rec.id === 'string' ? String(rec.id) : '';
    if (!/^[\w.:-]+$/.test(id)) continue;
    const label = describe(rec);
    // The shared sanitiser: escape sequences, control characters and bidi overrides go (a name shown reversed would lie).
    const name = typeof label === 'string' ? sanitize(label).trim() : '';
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
      // Newest first, as every command asks (src/backups/newest.ts).
      const { newestBackupsRequest } = await import('../backups/newest.js');
      if (args[0]) {
        const { resolveId } = await import('../cli/resolve.js');
        const jobId = String(await resolveId(client, 'jobs', args[0], { signal }));
        return toItems(await data(newestBackupsRequest(jobId, { pageSize: 100 })), (r) => words(r.status, when(r.created_at)));
      }
      // A few of each job's newest: the pages of backups are large, and the answer must come fast.
      const jobs = await data(firstPage('/jobs'));
      const lists = await Promise.all(
        (Array.isArray(jobs) ? (jobs as Array<{ id?: unknown; name?: unknown }>) : [])
          .filter((j) => typeof j.id === 'string')
          .map(async (j) => {
            const records = await data(newestBackupsRequest(j.id as string));
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

/** The handler of `__complete`. */
export const completeIds: Handler = async (input, ctx) => {
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

