// Accounts connected at cloud providers, through which snapshots are taken
// (/v1/snapshots/accounts).
import * as z from 'zod/mini';
import type { Column } from '../contract/context.js';
import type { ModuleSpec, ParamSpec } from '../contract/spec.js';
import { datetime, idArg, modifiedSince, record } from './common.js';
import { providerAliases, providerToken, publishedName } from '../util/providers.js';

/** The account provider list, in the interface's order. */
export const ACCOUNT_PROVIDERS = ['cloud_a', 'cloud_b', 'cloud_c', 'cloud_d', 'cloud_e', 'cloud_f', 'cloud_g', 'cloud_h'] as const;

/** Which providers require which credential key, from the interface's table. */
const REQUIRED_BY: Record<CredentialKey, readonly string[]> = {
  key: ['cloud_a', 'cloud_b', 'cloud_c', 'cloud_e', 'cloud_g', 'cloud_h'],
  secret: ['cloud_a', 'cloud_b', 'cloud_c', 'cloud_d', 'cloud_g'],
  region: ['cloud_a', 'cloud_b', 'cloud_g'],
  zone: ['cloud_e'],
  username: ['cloud_f'],
  password: ['cloud_f'],
};
type CredentialKey = 'key' | 'secret' | 'region' | 'zone' | 'username' | 'password';
const CREDENTIAL_KEYS = Object.keys(REQUIRED_BY) as CredentialKey[];

const CREDENTIAL_TEXT: Record<CredentialKey, string> = {
  key: 'Access key (credentials.key)',
  secret: 'Secret (credentials.secret); prefer --credentials-file to keep it out of the process list',
  region: 'Region (credentials.region)',
  zone: 'Zone (credentials.zone)',
  username: 'User name (credentials.username)',
  password: 'Password (credentials.password); prefer --credentials-file to keep it out of the process list',
};

/** `{name, pretty_name}`; a plain string is accepted as the name. */
export const providerSchema = z.union([record({ name: z.nullish(z.string()), pretty_name: z.nullish(z.string()) }), z.string()]);

export const accountSchema = record({
  id: z.int(),
  name: z.nullish(z.string()),
  // `YYYY-MM-DD HH:MM:SS` in account endpoints, ISO inside snapshots and resources.
  expires_at: z.nullish(datetime),
  created_at: z.nullish(datetime),
  updated_at: z.nullish(datetime),
  provider: z.nullish(providerSchema),
});

/** The display name of a provider object (`Cloud A`), else its name. */
export function providerText(provider: unknown): string | undefined {
  if (typeof provider === 'string') return publishedName(provider);
  if (!provider || typeof provider !== 'object') return undefined;
  const p = provider as { name?: unknown; pretty_name?: unknown };
  // A display name that is only a token (`cloud_a`) says less than the published name.
  if (typeof p.pretty_name === 'string' && p.pretty_name.trim() && !providerToken(p.pretty_name)) return p.pretty_name;
  return typeof p.name === 'string' ? publishedName(p.name) : typeof p.pretty_name === 'string' ? p.pretty_name : undefined;
}

/** The provider as the service names it (`cloud_a`): what json and tsv carry. */
export function providerName(provider: unknown): string | undefined {
  if (typeof provider === 'string') return provider;
  const name = provider && typeof provider === 'object' ? (provider as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? name : undefined;
}

/** A provider column: tables show its display name (`Cloud A`), tsv the raw name (`cloud_a`). */
export const providerColumn: Column = {
  key: 'provider',
  header: 'Provider',
  get: (r) => providerName(r.provider),
  show: (r) => providerText(r.provider),
};

export const schemas = { account: accountSchema };

export const columns: Record<string, Column[]> = {
  account: [
    { key: 'id', header: 'ID' },
    { key: 'name', header: 'Name' },
    providerColumn,
    { key: 'expires_at', header: 'Expires', format: 'time' },
    { key: 'created_at', header: 'Created', format: 'time' },
    { key: 'updated_at', header: 'Updated', format: 'time' },
  ],
};

const accountId = idArg('account_id', 'Account', 'integer', 'accounts');

const providerParam = (required: boolean): ParamSpec => ({
  name: 'provider',
  in: 'body',
  type: 'enum',
  values: ACCOUNT_PROVIDERS,
  aliases: providerAliases(ACCOUNT_PROVIDERS),
  required,
  description: 'Provider of the account',
});

/**
 * `--credentials-file` is named `credentials` so that values.ts finds
 * `credentials.secret` inside it when checking what a provider requires, and
 * buildRequest merges it first so single credential flags override its keys.
 */
const credentialsFile: ParamSpec = {
  name: 'credentials',
  flag: 'credentials-file',
  in: 'body',
  type: 'json-file',
  placeholder: 'file|-',
  description: 'JSON object of credentials (key, secret, region, zone, username, password), or - for standard input; flags override its keys',
};

function credentialParams(onCreate: boolean): ParamSpec[] {
  return CREDENTIAL_KEYS.map((key) => ({
    name: `credentials.${key}`,
    flag: key,
    in: 'body',
    type: 'string',
    placeholder: key === 'password' || key === 'secret' ? key : undefined,
    ...(onCreate ? { requiredWhen: { provider: REQUIRED_BY[key] } } : {}),
    description: CREDENTIAL_TEXT[key],
  }));
}

export const module: ModuleSpec = {
  name: 'accounts',
  commands: [
    {
      path: ['accounts', 'list'],
      summary: 'List connected provider accounts',
      examples: ['backupctl accounts list', 'backupctl accounts list --provider cloud_a --sort -updated_at', 'backupctl accounts list --modified-since 7d -q'],
      method: 'GET',
      endpoint: '/snapshots/accounts',
      params: [
        { name: 'provider', in: 'query', type: 'enum', values: ACCOUNT_PROVIDERS, aliases: providerAliases(ACCOUNT_PROVIDERS), description: 'Only accounts at this provider' },
        modifiedSince,
      ],
      list: { sort: ['id', 'name', 'expires_at', 'created_at', 'updated_at'], whole: true },
      output: { kind: 'list', schema: 'account', columns: 'account' },
    },
    {
      path: ['accounts', 'add'],
      summary: 'Connect a provider account',
      description:
        'Credentials each provider requires: key (cloud_a, cloud_b, cloud_c, cloud_e, cloud_g, cloud_h), secret (cloud_a, cloud_b, ' +
        'cloud_c, cloud_d, cloud_g), region (cloud_a, cloud_b, cloud_g), zone (cloud_e), username and password (cloud_f). ' +
        'Give them as flags or in a JSON file with --credentials-file, which keeps secrets out of the process list and shell history.',
      examples: [
        'backupctl accounts add --name prod --provider cloud_a --key AKIA... --region eu-central-1 --credentials-file creds.json',
        'pass show cloud-a | backupctl accounts add --name prod --provider cloud_a --credentials-file - -q',
        'backupctl accounts add --name legacy --provider cloud_f --username ops --credentials-file creds.json',
      ],
      method: 'POST',
      endpoint: '/snapshots/accounts',
      params: [
        { name: 'name', in: 'body', type: 'string', required: true, description: 'Name of the account' },
        providerParam(true),
        credentialsFile,
        ...credentialParams(true),
      ],
      // The answer to a creation carries no provider (only the list adds it): the table shows the one sent.
      output: { kind: 'record', schema: 'account', columns: 'account', fallbacks: { provider: 'provider' } },
    },
    {
      path: ['accounts', 'update'],
      summary: 'Rename an account or change its provider or credentials',
      description: 'Only what is given changes; credential keys not given keep their values.',
      examples: [
        'backupctl accounts update 4 --name prod-eu',
        'backupctl accounts update 4 --credentials-file rotated.json',
        'backupctl accounts update 4 --region eu-west-1',
      ],
      method: 'PATCH',
      endpoint: '/snapshots/accounts/{account_id}',
      params: [
        accountId,
        { name: 'name', in: 'body', type: 'string', description: 'New name' },
        providerParam(false),
        credentialsFile,
        ...credentialParams(false),
      ],
      // A PATCH without a body would change nothing yet look like success.
      checks: { nothingToUpdate: { what: 'account {account_id}' } },
      output: { kind: 'none', done: 'Updated account {account_id}.' },
    },
    {
      path: ['accounts', 'delete'],
      summary: 'Disconnect a provider account',
      examples: ['backupctl accounts delete 4', 'backupctl accounts delete 4 --yes'],
      method: 'DELETE',
      endpoint: '/snapshots/accounts/{account_id}',
      params: [accountId],
      confirm: 'Delete account {account_id}?',
      output: { kind: 'none', done: 'Deleted account {account_id}.' },
    },
    {
      path: ['accounts', 'sync'],
      summary: 'Ask the service to look for new disks and servers in an account',
      description: 'The service answers at once; `backupctl resources list` shows what it found.',
      examples: ['backupctl accounts sync 4'],
      method: 'PATCH',
      endpoint: '/snapshots/accounts/{account_id}/sync',
      params: [accountId],
      output: { kind: 'none', done: 'Sync of account {account_id} requested.' },
    },
  ],
};
