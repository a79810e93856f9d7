// Fresh signed URLs (issue 29 §6). A store's signed URL holds about an hour
// (docs/verify.md "Long runs and expired URLs"): a long verify reaches its
// later files after that, and a resumed download may too. This UrlSource
// (src/pipeline/types.ts) asks the service for fresh ones, POST
// /v1/backups/{id}/download, once per backup at a time:
// - before a file starts, when the backup's URLs are older than `maxAgeMs`;
// - when the store answered 403 on the one held (the transfer goes on from the
//   byte reached).
// A refusal of the service is the only error.
import type { Context } from '../contract/context.js';
import { CliError, ConfigError, ExitCode } from '../errors.js';
import { sanitize } from '../output/sanitize.js';
import type { PipelineBackup, PipelineFile, UrlSource } from './types.js';

/** Fresh URLs are asked for before a file starts once the backup's are this old (half the hour they hold). */
export const DEFAULT_URL_MAX_AGE_MS = 30 * 60_000;

const baseName = (name: string) => name.replace(/\\/g, '/').split('/').pop() ?? name;

/** The URL of `name` in a download answer (keyed by bare file names, where records give storage paths). */
export function urlOf(urls: Record<string, unknown>, name: string): string | undefined {
  const exact = urls[name];
  if (typeof exact === 'string') return exact;
  const found = Object.entries(urls).find(([k, v]) => typeof v === 'string' && baseName(k) === baseName(name));
  return found?.[1] as string | undefined;
}

/** Asks the service for the backup's signed URLs now: file name -> URL. */
export async function downloadUrls(ctx: Pick<Context, 'client' | 'signal'>, backupId: string): Promise<Record<string, unknown>> {
  const client = await ctx.client();
  const res = await client.request({ method: 'POST', path: `/backups/${encodeURIComponent(backupId)}/download` }, { signal: ctx.signal });
  const data = (res.body as { data?: unknown } | undefined)?.data;
  return data && typeof data === 'object' ? (data as Record<string, unknown>) : {};
}

/** BACKUPCTL_URL_REFRESH_AFTER (a duration): the age past which fresh URLs are asked for before a file starts. */
export async function urlMaxAgeFromEnv(env: NodeJS.ProcessEnv): Promise<number> {
  const { envValue, parseDuration } = await import('../config/index.js');
  const text = envValue(env, 'BACKUPCTL_URL_REFRESH_AFTER');
  if (text === undefined) return DEFAULT_URL_MAX_AGE_MS;
  try {
    return parseDuration(text);
  } catch (err) {
    throw new ConfigError(`${(err as Error).message} (from BACKUPCTL_URL_REFRESH_AFTER)`);
  }
}

export class SignedUrls implements UrlSource {
  /** Per backup: when its URLs were got, and the fresh ones (a pending request is shared by its files). */
  private readonly got = new Map<string, { at: number; urls?: Promise<Record<string, unknown>> }>();

  constructor(
    private readonly ctx: Pick<Context, 'client' | 'signal'>,
    private readonly maxAgeMs = DEFAULT_URL_MAX_AGE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  async current(backup: PipelineBackup, file: PipelineFile): Promise<string> {
    const held = this.got.get(backup.id) ?? { at: backup.urls_at ?? this.now() };
    this.got.set(backup.id, held);
    if (this.now() - held.at <= this.maxAgeMs) return held.urls ? this.pick(await held.urls, backup, file, file.url) : file.url;
    return this.fresh(backup, file);
  }

  async fresh(backup: PipelineBackup, file: PipelineFile): Promise<string> {
    const held = this.got.get(backup.id);
    // Files of one backup read at once share one request when their URLs were refreshed a moment ago.
    const recent = held?.urls && this.now() - held.at < 2_000 ? held.urls : undefined;
    const urls = recent ?? downloadUrls(this.ctx, backup.id);
    if (!recent) this.got.set(backup.id, { at: this.now(), urls });
    return this.pick(await urls, backup, file);
  }

  private pick(urls: Record<string, unknown>, backup: PipelineBackup, file: PipelineFile, fallback?: string): string {
    const url = urlOf(urls, file.name) ?? fallback;
    if (url === undefined) {
      throw new CliError(`the service's fresh URLs for backup ${sanitize(backup.id)} name no file ${sanitize(file.name)}`, ExitCode.transient);
    }
    return url;
  }
}
