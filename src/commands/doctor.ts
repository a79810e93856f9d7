// `backupctl doctor`: which spelling the service answers to (issue 30 §1). The interface document
// writes the droplet/volume area as /v1/cloud_i/…, the published service as /v1/digitalocean/…;
// doctor asks for the first droplet both ways and says which answered, and whether the
// profile's provider_names setting sends the one that does.
import * as z from 'zod/mini';
import type { Column, Context, Handler } from '../contract/context.js';
import type { ModuleSpec } from '../contract/spec.js';
import { ApiError, InterruptedError } from '../errors.js';
import { MACHINE_AREA, PROVIDER_NAME_MODES, type ProviderNames } from '../util/providers.js';

export const module: ModuleSpec = {
  name: 'doctor',
  commands: [
    {
      path: ['doctor'],
      summary: 'Check which provider names the service answers to (the droplet/volume path both ways)',
      description:
        'Sends GET /v1/cloud_i/droplets (the interface document\'s spelling) and GET /v1/digitalocean/droplets ' +
        '(the published service\'s), one page of 15 each, and says which the service answers to and whether the ' +
        "profile's provider_names setting (neutral or published) sends that one. Change it with " +
        '`backupctl config set provider_names published` or `backupctl auth login --provider-names published`.',
      examples: ['backupctl doctor', 'backupctl doctor --json'],
      params: [],
      handler: 'doctor',
      output: { kind: 'record', schema: 'doctor', idField: 'answers_to' },
      alsoCalls: ['GET /cloud_i/droplets'],
    },
  ],
};

const doctorSchema = z.object({
  profile: z.string(),
  provider_names: z.string(),
  neutral_path: z.string(),
  neutral_status: z.nullable(z.number()),
  published_path: z.string(),
  published_status: z.nullable(z.number()),
  answers_to: z.string(),
  setting_ok: z.boolean(),
  size_unit: z.nullable(z.number()),
});

export const schemas = { doctor: doctorSchema };

const COLUMNS: Column[] = [
  { key: 'profile', header: 'Profile' },
  { key: 'provider_names', header: 'Provider names sent' },
  { key: 'neutral_path', header: 'Neutral path' },
  { key: 'neutral_status', header: 'Neutral status', get: (r) => (r.neutral_status === null ? 'no answer' : String(r.neutral_status)) },
  { key: 'published_path', header: 'Published path' },
  { key: 'published_status', header: 'Published status', get: (r) => (r.published_status === null ? 'no answer' : String(r.published_status)) },
  { key: 'answers_to', header: 'Service answers to' },
  { key: 'setting_ok', header: 'Setting right', get: (r) => (r.setting_ok ? 'yes' : 'no') },
  { key: 'size_unit', header: 'Sizes stated in', get: (r) => (r.size_unit ? `${r.size_unit}s (seen on a download)` : 'not seen yet') },
];

/** The status a path answers with: 2xx, 404, ..., or null when no answer came (network). */
async function statusOf(ctx: Context, client: import('../contract/context.js').Client, path: string): Promise<number | null> {
  try {
    const res = await client.request({ method: 'GET', path, query: { page_size: 15 } }, { signal: ctx.signal });
    return res.status;
  } catch (err) {
    if (err instanceof InterruptedError || ctx.signal.aborted) throw err;
    if (err instanceof ApiError && err.status >= 400) {
      // A refused token is the same both ways: say so rather than guess a spelling.
      if (err.status === 401) throw err;
      return err.status;
    }
    return null;
  }
}

const doctor: Handler = async (_input, ctx) => {
  const s = await ctx.settings();
  if (!s.token) {
    const { noTokenError } = await import('../errors.js');
    throw noTokenError(s.profile);
  }
  const [{ createClient }, { clientLimitsFromEnv }] = await Promise.all([import('../http/client.js'), import('../cli/context.js')]);
  // Its own client: the context's spells every path as the setting says, and doctor needs both.
  const client = createClient({ baseUrl: s.baseUrl, token: s.token, timeoutMs: s.timeoutMs, debug: s.debug, stderr: ctx.io.stderr, ...(await clientLimitsFromEnv(ctx.env)) });
  const statuses: Record<ProviderNames, number | null> = { neutral: null, published: null };
  try {
    for (const mode of PROVIDER_NAME_MODES) statuses[mode] = await statusOf(ctx, client, `/${MACHINE_AREA[mode]}/droplets`);
  } finally {
    await client.close();
  }
  const ok = (st: number | null) => st !== null && st >= 200 && st < 300;
  const answering = PROVIDER_NAME_MODES.filter((m) => ok(statuses[m]));
  const answersTo = answering.length === 2 ? 'both' : answering.length === 1 ? answering[0]! : 'neither';
  const settingOk = answering.includes(s.providerNames);
  // The unit the service's stated sizes were seen in (issue 30 §3), remembered by downloads.
  const [{ knownSizeUnit }, { stateDir }] = await Promise.all([import('../backups/size-unit.js'), import('../config/paths.js')]);
  const unit = await knownSizeUnit(stateDir(ctx.env), s.profile, s.baseUrl);
  const record = {
    profile: s.profile,
    provider_names: s.providerNames,
    neutral_path: `/v1/${MACHINE_AREA.neutral}/droplets`,
    neutral_status: statuses.neutral,
    published_path: `/v1/${MACHINE_AREA.published}/droplets`,
    published_status: statuses.published,
    answers_to: answersTo,
    setting_ok: settingOk,
    size_unit: unit?.unit ?? null,
  };
  if (!settingOk && answering.length === 1) {
    const other = answering[0]!;
    const flag = s.profile === 'default' ? '' : ` --profile ${s.profile}`;
    ctx.warn(`the service answers to the ${other} names, and profile "${s.profile}" sends the ${s.providerNames} ones: run backupctl${flag} config set provider_names ${other}`);
  } else if (answersTo === 'neither') {
    ctx.warn('the service answered to neither droplet path: droplets and volumes may not be part of this account, or the base URL is wrong');
  }
  return { kind: 'record', record, columns: COLUMNS, idField: 'answers_to' };
};

export const handlers: Record<string, Handler> = { doctor };
