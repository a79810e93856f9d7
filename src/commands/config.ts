// config get | set | unset | list | path: the settings stored in a profile.
import * as z from 'zod/mini';
import type { Column, Context, Handler } from '../contract/context.js';
import type { ModuleSpec } from '../contract/spec.js';
import { openContextConfig } from '../cli/context.js';
import { parseProviderNames } from '../util/providers.js';
import { CliError, UsageError } from '../errors.js';
import {
  DURATION_HINT,
  OUTPUT_FORMATS,
  assertProfileName,
  configDir,
  configFilePath,
  maskToken,
  parseDuration,
  resolveProfileName,
  validateBaseUrl,
  JOB_SETTING_KEYS,
  type ConfigStore,
  type JobSettings,
  type ProfileData,
} from '../config/index.js';
import { checkStateUrl, redactStateUrl } from '../config/state-url.js';

/** Keys `config get/set` accept. `token` is listed only to explain where it is managed instead. */
const CONFIG_KEYS = ['base_url', 'output', 'timeout', 'provider_names', 'provider-names', 'state_url', 'token'] as const;
type SettableKey = 'base_url' | 'output' | 'timeout' | 'provider_names' | 'state_url';

const KEY_HELP =
  `Setting: base_url (https URL), output (${OUTPUT_FORMATS.join('|')}), timeout (e.g. 30s), provider_names (neutral|published: which provider names and droplet/volume path are sent), state_url (postgres://…: a state the team shares, docs/assurance.md; its password never printed), ` +
  `or a job's jobs.<job>.${JOB_SETTING_KEYS.join('|')} ` +
  '(<job> its name or id: how verify, restore-test and download decrypt its backups); the token is managed by `auth login`';

export const module: ModuleSpec = {
  name: 'config',
  commands: [
    {
      path: ['config', 'get'],
      summary: "Print one setting of the profile",
      examples: ['backupctl config get base_url', 'backupctl --profile work config get timeout'],
      params: [
        { name: 'key', in: 'local', type: 'string', positional: true, required: true, description: KEY_HELP },
      ],
      output: { kind: 'object', schema: 'value' },
      handler: 'get',
      local: true,
    },
    {
      path: ['config', 'set'],
      summary: 'Change one setting of the profile',
      examples: [
        'backupctl config set base_url https://api.example.com',
        'backupctl config set output json',
        'backupctl --profile work config set timeout 1m',
        'backupctl config set provider_names published',
        'backupctl config set "jobs.shop mysql.private_key" ~/.config/backupctl/backup-key.pem',
      ],
      params: [
        { name: 'key', in: 'local', type: 'string', positional: true, required: true, description: KEY_HELP },
        {
          name: 'value',
          in: 'local',
          type: 'string',
          positional: true,
          required: true,
          description: 'New value',
          hint: 'To go back to the default: backupctl config unset <key>',
        },
      ],
      output: { kind: 'none', done: 'Set {key}', idField: 'key' },
      handler: 'set',
      local: true,
    },
    {
      path: ['config', 'unset'],
      summary: 'Remove one setting of the profile, so its default applies again',
      examples: ['backupctl config unset output', 'backupctl --profile work config unset timeout'],
      params: [
        { name: 'key', in: 'local', type: 'string', positional: true, required: true, description: KEY_HELP },
      ],
      output: { kind: 'none', done: 'Unset {key}', idField: 'key' },
      handler: 'unset',
      local: true,
    },
    {
      path: ['config', 'list'],
      summary: "Show the profile's settings (token masked)",
      examples: ['backupctl config list', 'backupctl --profile work config list --json'],
      params: [],
      output: { kind: 'record', schema: 'settings', idField: 'profile' },
      handler: 'list',
      local: true,
    },
    {
      path: ['config', 'path'],
      summary: 'Print the path of the config file',
      examples: ['backupctl config path', 'backupctl --config-dir ./ci-config config path'],
      params: [],
      output: { kind: 'object' },
      handler: 'path',
      local: true,
    },
  ],
};

function openStore(ctx: Context): Promise<ConfigStore> {
  return openContextConfig(ctx);
}

type Verb = 'get' | 'set' | 'unset';

function refuseToken(verb: Verb): UsageError {
  if (verb === 'unset') return new UsageError('config unset does not remove the token', ['  Use: backupctl auth logout']);
  return verb === 'set'
    ? new UsageError('config set does not take the token: on the command line it would stay in shell history and `ps`', [
        '  Use: backupctl auth login --with-token < token.txt',
      ])
    : new UsageError('config get does not print the token', ['  Use: backupctl auth token']);
}

function invalidValue(key: SettableKey, raw: string, allowed: string): UsageError {
  return new UsageError(`invalid value ${JSON.stringify(raw)} for ${key}: ${allowed}`, [`  To go back to the default: backupctl config unset ${key}`]);
}

/** Checks a value before it is written, and returns the form stored. */
function normalizeValue(key: SettableKey, raw: string): string {
  switch (key) {
    case 'base_url':
      try {
        return validateBaseUrl(raw, 'config set base_url');
      } catch (err) {
        if (!(err instanceof CliError)) throw err;
        throw new UsageError(`${err.message}; allowed: an https:// URL, or http:// to localhost, 127.0.0.0/8 or ::1`);
      }
    case 'output': {
      const value = raw.trim().toLowerCase();
      if (!(OUTPUT_FORMATS as readonly string[]).includes(value)) {
        throw invalidValue(key, raw, `allowed values: ${OUTPUT_FORMATS.join(', ')}`);
      }
      return value;
    }
    case 'provider_names': {
      const mode = parseProviderNames(raw);
      if (!mode) throw invalidValue(key, raw, 'allowed values: neutral (the interface document\'s tokens, cloud_a), published (the published names, aws)');
      return mode;
    }
    case 'state_url':
      try {
        return checkStateUrl(raw, 'config set state_url');
      } catch (err) {
        if (!(err instanceof CliError)) throw err;
        throw new UsageError(err.message, [`  To go back to the state folder: backupctl config unset ${key}`]);
      }
    case 'timeout':
      try {
        parseDuration(raw);
      } catch {
        throw invalidValue(key, raw, DURATION_HINT);
      }
      return raw.trim();
  }
}

type JobKey = { job: string; setting: keyof JobSettings };

/** `jobs.<job>.<setting>` (the job's name may hold dots and spaces; `private-key` is taken for `private_key`). */
function jobKey(key: string): JobKey | undefined {
  const m = /^jobs\.(.+)\.([a-z_-]+)$/.exec(key);
  if (!m) return undefined;
  const setting = m[2]!.replace(/-/g, '_');
  if (!(JOB_SETTING_KEYS as readonly string[]).includes(setting)) {
    throw new UsageError(`unknown job setting ${JSON.stringify(m[2])}: allowed: ${JOB_SETTING_KEYS.join(', ')}`);
  }
  return { job: m[1]!, setting: setting as keyof JobSettings };
}

function settableKey(key: unknown, verb: Verb): SettableKey | JobKey {
  if (key === 'token') throw refuseToken(verb);
  if (key === 'base_url' || key === 'output' || key === 'timeout' || key === 'provider_names' || key === 'state_url') return key;
  if (key === 'provider-names') return 'provider_names';
  const job = typeof key === 'string' ? jobKey(key) : undefined;
  if (job) return job;
  throw new UsageError(`unknown setting ${JSON.stringify(key)}: allowed: base_url, output, timeout, provider_names, state_url, jobs.<job>.${JOB_SETTING_KEYS.join('|')}`);
}

/** A job setting's stored form: a file as an absolute path (cron runs elsewhere), a command as given. */
async function jobValue(k: JobKey, raw: string): Promise<string> {
  if (!raw.trim()) throw new UsageError(`invalid value for jobs.${k.job}.${k.setting}: empty`);
  if (k.setting === 'decrypt_with') return raw;
  const path = process.getBuiltinModule('node:path') as typeof import('node:path');
  return path.resolve(raw);
}

const get: Handler = async (input, ctx) => {
  const key = settableKey(input.values.key, 'get');
  const store = await openStore(ctx);
  const profile = resolveProfileName(ctx.globals, ctx.env, store);
  const stored = typeof key === 'string' ? store.profile(profile)[key] : store.profile(profile).jobs?.[key.job]?.[key.setting];
  // A state URL's password is never printed.
  const value = key === 'state_url' && typeof stored === 'string' ? redactStateUrl(stored) : stored;
  const text = value === undefined ? '' : `${value}\n`;
  // The raw value, for `$(backupctl config get base_url)`, even when the profile's own output is json;
  // JSON only when this command line asks for it.
  const asked = ctx.globals.json === true || /^\s*(nd)?json\s*$/i.test(ctx.globals.output ?? '');
  return asked ? { kind: 'text', text, value: value ?? null } : { kind: 'text', text };
};

const unset: Handler = async (input, ctx) => {
  const key = settableKey(input.values.key, 'unset');
  const store = await openStore(ctx);
  const profile = resolveProfileName(ctx.globals, ctx.env, store);
  assertProfileName(profile);
  if (typeof key !== 'string') {
    await store.update((data) => {
      const jobs = data.profiles[profile]?.jobs;
      const job = jobs && Object.hasOwn(jobs, key.job) ? jobs[key.job] : undefined;
      if (!job) return;
      delete job[key.setting];
      if (!Object.keys(job).length) delete jobs![key.job];
      if (!Object.keys(jobs!).length) delete data.profiles[profile]!.jobs;
    });
    const name = `jobs.${key.job}.${key.setting}`;
    return { kind: 'done', message: `Unset ${name} in profile ${profile}.`, id: name };
  }
  if (store.profile(profile)[key] !== undefined) await store.unsetValue(profile, key);
  return { kind: 'done', message: `Unset ${key} in profile ${profile}; its default applies.`, id: key };
};

const set: Handler = async (input, ctx) => {
  const key = settableKey(input.values.key, 'set');
  if (typeof key !== 'string') {
    const value = await jobValue(key, String(input.values.value));
    const store = await openStore(ctx);
    const profile = resolveProfileName(ctx.globals, ctx.env, store);
    assertProfileName(profile);
    await store.update((data) => {
      const existing = Object.hasOwn(data.profiles, profile) ? data.profiles[profile]! : {};
      const jobs = { ...existing.jobs };
      jobs[key.job] = { ...(Object.hasOwn(jobs, key.job) ? jobs[key.job] : {}), [key.setting]: value };
      data.profiles[profile] = { ...existing, jobs };
    });
    const name = `jobs.${key.job}.${key.setting}`;
    // A command may hold anything: said by name only.
    return { kind: 'done', message: `Set ${name}${key.setting === 'decrypt_with' ? '' : ` to ${value}`} in profile ${profile}.`, id: name };
  }
  const value = normalizeValue(key, String(input.values.value));
  const store = await openStore(ctx);
  const profile = resolveProfileName(ctx.globals, ctx.env, store);
  assertProfileName(profile);
  if (key === 'output') await store.setValue(profile, key, value as NonNullable<ProfileData['output']>);
  else if (key === 'provider_names') await store.setValue(profile, key, value as NonNullable<ProfileData['provider_names']>);
  else await store.setValue(profile, key, value);
  return { kind: 'done', message: `Set ${key} to ${key === 'state_url' ? redactStateUrl(value) : value} in profile ${profile}.`, id: key };
};

/** `config get --json`: the stored value, null when unset. */
const valueSchema = z.nullable(z.union([z.string(), z.number()]));
/** `config list --json`: the profile's settings, null when unset, the token masked. */
const settingsSchema = z.object({
  profile: z.string(),
  base_url: z.nullable(z.string()),
  output: z.nullable(z.string()),
  timeout: z.nullable(z.union([z.string(), z.number()])),
  provider_names: z.nullable(z.string()),
  token: z.string(),
});

export const schemas = { value: valueSchema, settings: settingsSchema };

const LIST_COLUMNS: Column[] = [
  { key: 'profile', header: 'Profile' },
  { key: 'base_url', header: 'Base URL', get: (r) => r.base_url ?? '' },
  { key: 'output', header: 'Output', get: (r) => r.output ?? '' },
  { key: 'timeout', header: 'Timeout', get: (r) => r.timeout ?? '' },
  { key: 'provider_names', header: 'Provider names', get: (r) => r.provider_names ?? '' },
  { key: 'token', header: 'Token' },
];

const list: Handler = async (_input, ctx) => {
  const store = await openStore(ctx);
  const profile = resolveProfileName(ctx.globals, ctx.env, store);
  const p = store.profile(profile);
  const record = {
    profile,
    base_url: p.base_url ?? null,
    output: p.output ?? null,
    timeout: p.timeout ?? null,
    provider_names: p.provider_names ?? null,
    token: maskToken(p.token),
  };
  return { kind: 'record', record, columns: LIST_COLUMNS, idField: 'profile' };
};

// Does not open the file: the path is most wanted when the file is broken.
const path: Handler = async (_input, ctx) => {
  const file = configFilePath(configDir(ctx.env, ctx.globals.configDir));
  // A path is plain text whatever the output format, so `$(backupctl config path)` always works.
  return { kind: 'text', text: `${file}\n` };
};

export const handlers: Record<string, Handler> = { get, set, unset, list, path };
