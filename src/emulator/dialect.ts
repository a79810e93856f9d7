// `backupctl emulator --dialect published` (issue 30 §7): the service as its public API reference
// pages show it, around the same in-memory service that speaks the interface document. Requests
// are read in the published spelling and handed to the routes in the neutral one; answers are
// rewritten on the way out. Every difference lives here:
// - provider names: `aws` for `cloud_a` in parameters and answers (a neutral token is refused, as
//   the published service would refuse it), and the droplet/volume area at /v1/digitalocean/…
//   (/v1/cloud_i/… is not found); `pretty_name` the companies' display names;
// - schedules: created from `{order: 0, frequency: "h6", run_offset: 3, timezone, retention_*}`
//   (0-based order, no cron); answered with `frequency` + `frequency_mode` + `run_offset` and
//   the published example's contradicting `cron: "0 * * * *"`;
// - a backup's `files[].name` is its storage path (`<s3_directory>/<name>`), without a signed
//   URL; the download answer's keys stay bare names; file sizes are stated in 1000s ("1.25 KB");
// - a new encryption key is answered without its id;
// - list answers carry `links: {}` and `meta: {}` (pages are still served by `page`).
import { HttpError, jsonAnswer, type Answer } from './reply.js';
import { isObject } from './validate.js';
import { snapshotScheduleCron } from '../util/snapshot-cron.js';
import { PUBLISHED_NAMES, providerToken, servicePath } from '../util/providers.js';

export type Dialect = 'neutral' | 'published';

/** How the published pages show each provider. */
const DISPLAY: Readonly<Record<string, string>> = {
  cloud_a: 'AWS',
  cloud_b: 'AWS Lightsail',
  cloud_c: 'Exoscale',
  cloud_d: 'Hetzner',
  cloud_e: 'Google Cloud',
  cloud_f: 'UpCloud',
  cloud_g: 'Scaleway',
  cloud_h: 'Vultr',
  cloud_i: 'DigitalOcean',
  cloud_j: 'Wasabi',
  cloud_k: 'Backblaze B2',
  cloud_l: 'Filebase',
  cloud_m: 'Storage of the service',
  custom: 'Custom',
};

/** The published example's cron, sent beside every hour-mode frequency whatever the frequency. */
export const PUBLISHED_SCHEDULE_CRON = '0 * * * *';

export interface Inbound {
  path: string;
  query: Record<string, string | string[]>;
  body: unknown;
}

function invalid(field: string): HttpError {
  return new HttpError(422, { message: `The selected ${field} is invalid.`, errors: { [field]: [`The selected ${field} is invalid.`] } });
}

/** A provider value of a published request, as the routes read it (a neutral token is refused). */
function providerIn(value: unknown, field: string): unknown {
  if (typeof value !== 'string') return value;
  const lower = value.trim().toLowerCase();
  const token = providerToken(lower);
  // The published service knows its names; `cloud_m` and `custom` are spelt the same both ways.
  if (token === undefined || (lower === token && PUBLISHED_NAMES[token] !== token)) throw invalid(field);
  return token;
}

/** One schedule item of a published creation or update: 0-based order, a frequency and offset instead of a cron. */
function scheduleIn(item: unknown): unknown {
  if (!isObject(item)) return item;
  const out: Record<string, unknown> = { ...item };
  if (typeof out.order === 'number') out.order = out.order + 1;
  if ((out.cron === undefined || out.cron === null) && typeof out.frequency === 'string') {
    const made = snapshotScheduleCron(out.frequency, out.run_offset ?? 0);
    if ('cron' in made) out.cron = made.cron;
  }
  return out;
}

/**
 * A published request as the neutral routes read it; undefined path when it is not found
 * (the neutral droplet path), so the caller answers 404.
 */
export function inbound(method: string, path: string, query: Record<string, string | string[]>, body: unknown): Inbound | Answer {
  if (/^\/v1\/cloud_i(\/|$)/.test(path)) return jsonAnswer(404, { message: `The route ${path.replace(/^\//, '')} could not be found.` });
  const routed = servicePath(path, 'neutral');
  const q = { ...query };
  try {
    if (typeof q.provider === 'string') q.provider = providerIn(q.provider, 'provider') as string;
    let b = body;
    if (isObject(b)) {
      b = { ...b };
      const rec = b as Record<string, unknown>;
      if ('provider' in rec) rec.provider = providerIn(rec.provider, 'provider');
      if (Array.isArray(rec.schedules)) rec.schedules = rec.schedules.map(scheduleIn);
      if (/\/schedules\/[^/]+$/.test(routed) && method === 'PATCH') Object.assign(rec, scheduleIn({ ...rec, order: undefined }), { order: rec.order });
    }
    return { path: routed, query: q, body: b };
  } catch (err) {
    if (err instanceof HttpError) return jsonAnswer(err.status, err.body, err.headers);
    throw err;
  }
}

const UNITS = ['bytes', 'KB', 'MB', 'GB', 'TB'] as const;

/** A neutral size text (exact in 1024s, or "N bytes") back to its bytes. */
function bytesOf(text: string): number | undefined {
  const m = /^([\d.]+)\s*(bytes|KB|MB|GB|TB)$/.exec(text.trim());
  if (!m) return undefined;
  return Math.round(Number(m[1]) * 1024 ** UNITS.indexOf(m[2] as (typeof UNITS)[number]));
}

/** Bytes stated as the published service states them: in 1000s, two decimals ("1.25 KB", "744 bytes"). */
export function publishedSize(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < UNITS.length - 1) {
    value /= 1000;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${Number(value.toFixed(2))} ${UNITS[unit]}`;
}

/** A schedule of a job answer as the published example shows it. */
function scheduleOut(s: Record<string, unknown>): Record<string, unknown> {
  const out = { ...s };
  if (typeof out.schedule_order === 'number') out.schedule_order = out.schedule_order - 1;
  const cron = typeof out.cron === 'string' ? out.cron.trim().split(/\s+/) : [];
  if (out.frequency_mode === 'hour' && typeof out.frequency === 'number' && 24 % out.frequency === 0) {
    // The hour of the day the runs start from: what the cron said, now in run_offset.
    const hour = /^\d+$/.test(cron[1] ?? '') ? Number(cron[1]) : /^(\d+)-\d+\/\d+$/.exec(cron[1] ?? '')?.[1];
    out.run_offset = hour === undefined ? 0 : Number(hour) % out.frequency;
    out.cron = PUBLISHED_SCHEDULE_CRON;
  }
  return out;
}

function walk(value: unknown, inBackup: string | undefined): unknown {
  if (Array.isArray(value)) return value.map((v) => walk(v, inBackup));
  if (!isObject(value)) return value;
  let rec: Record<string, unknown> = { ...value };
  if (rec.resource_type === 'BackupJob' && 'frequency' in rec) rec = scheduleOut(rec);
  const folder = typeof rec.s3_directory === 'string' && Array.isArray(rec.files) ? rec.s3_directory.replace(/\/+$/, '') : undefined;
  for (const [key, v] of Object.entries(rec)) {
    if (key === 'provider') {
      if (typeof v === 'string') {
        const token = providerToken(v);
        rec.provider = token ? PUBLISHED_NAMES[token] : v;
      } else if (isObject(v) && typeof v.name === 'string') {
        const token = providerToken(v.name);
        rec.provider = token ? { ...v, name: PUBLISHED_NAMES[token], pretty_name: DISPLAY[token] } : v;
      }
      continue;
    }
    if (key === 'files' && Array.isArray(v)) {
      rec.files = v.map((f) => {
        if (!isObject(f)) return f;
        const file: Record<string, unknown> = { ...f };
        if (typeof file.size === 'string') {
          const bytes = bytesOf(file.size);
          if (bytes !== undefined) file.size = publishedSize(bytes);
        }
        if (folder && typeof file.name === 'string' && !file.name.includes('/')) file.name = `${folder}/${file.name}`;
        // The published backup record lists no signed URL: the files are fetched through POST /v1/backups/{id}/download.
        if (folder) delete file.url;
        return file;
      });
      continue;
    }
    if (v !== null && typeof v === 'object') rec[key] = walk(v, folder ?? inBackup);
  }
  return rec;
}

/** A neutral answer as the published service gives it. */
export function outbound(method: string, neutralPath: string, answer: Answer): Answer {
  if (!answer.body.length || !/json/i.test(String(answer.headers['Content-Type'] ?? ''))) return answer;
  let body: unknown;
  try {
    body = JSON.parse(answer.body.toString('utf8'));
  } catch {
    return answer;
  }
  if (!isObject(body)) return answer;
  let out = walk(body, undefined) as Record<string, unknown>;
  if (Array.isArray(out.data) && 'links' in out && 'meta' in out) out = { ...out, links: {}, meta: {} };
  if (method === 'POST' && neutralPath === '/v1/encryption-keys' && isObject(out.data)) {
    const { id: _id, ...rest } = out.data;
    out = { ...out, data: rest };
  }
  const text = JSON.stringify(out);
  return { ...answer, body: Buffer.from(text) };
}
