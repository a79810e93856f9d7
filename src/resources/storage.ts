// Storage destinations where backups are written (/v1/storage).
import * as z from 'zod/mini';
import type { Column } from '../contract/context.js';
import type { ModuleSpec, ParamSpec } from '../contract/spec.js';
import { idArg, modifiedSince, record } from './common.js';
import { providerAliases, publishedName } from '../util/providers.js';
import { ACCOUNT_PROVIDERS } from './accounts.js';

/** The storage provider list of the interface. */
export const STORAGE_PROVIDERS = ['cloud_i', 'cloud_a', 'cloud_j', 'cloud_k', 'cloud_l', 'cloud_f', 'cloud_m', 'cloud_g', 'cloud_c', 'custom'] as const;
const REGIONAL_PROVIDERS = STORAGE_PROVIDERS.filter((p) => p !== 'custom');
/** Providers that take no key or secret (the interface names cloud_m; the other three are not shown). */
export const KEYLESS_PROVIDERS: readonly string[] = ['cloud_m'];
/** storage add: every other provider needs a key and a secret; the keyless ones refuse them. */
const keyed = { provider: STORAGE_PROVIDERS.filter((p) => !KEYLESS_PROVIDERS.includes(p)) };
const keyless = { provider: KEYLESS_PROVIDERS };
/**
 * `storage list --provider`: the interface's storage list, and the account providers the published
 * page lists for this filter (issue 30 §7): a value of either list is accepted and sent.
 */
const LIST_FILTER_PROVIDERS = [...STORAGE_PROVIDERS, ...ACCOUNT_PROVIDERS.filter((p) => !(STORAGE_PROVIDERS as readonly string[]).includes(p))];

export const storageSchema = record({
  id: z.int(),
  name: z.nullish(z.string()),
  provider: z.nullish(z.string()),
  region: z.nullish(z.string()),
  bucket: z.nullish(z.string()),
  endpoint: z.nullish(z.string()),
  // Absent when embedded in a job.
  estimated_size: z.nullish(z.union([z.number(), z.string()])),
  priority: z.nullish(z.union([z.number(), z.string()])),
});

export const schemas = { storage: storageSchema };

export const columns: Record<string, Column[]> = {
  storage: [
    { key: 'id', header: 'ID' },
    { key: 'name', header: 'Name' },
    // Tables show the published name (aws); tsv and --json the value as the service sent it.
    { key: 'provider', header: 'Provider', show: (r) => (typeof r.provider === 'string' ? publishedName(r.provider) : undefined) },
    { key: 'region', header: 'Region' },
    { key: 'bucket', header: 'Bucket' },
    { key: 'endpoint', header: 'Endpoint' },
    // The interface states no unit for it (bytes? KB?): shown as the service sent it (issue 30 §7).
    { key: 'estimated_size', header: 'Est. size', format: 'size' },
    { key: 'priority', header: 'Priority' },
  ],
};

const storageId = idArg('storage_id', 'Storage', 'integer', 'storage');

/**
 * Both feed the body's `secret`; the file's text is trimmed (an editor or
 * `echo` leaves a newline that would otherwise become part of the secret).
 */
const secretParams: ParamSpec[] = [
  {
    name: 'secret',
    in: 'body',
    type: 'string',
    placeholder: 'secret',
    requiredWhen: keyed,
    refusedWhen: keyless,
    description: 'Secret access key; prefer --secret-file to keep it out of the process list',
  },
  {
    name: 'secret#file',
    refusedWhen: keyless,
    flag: 'secret-file',
    in: 'body',
    type: 'text-file',
    trim: true,
    placeholder: 'file|-',
    description: 'Read the secret from a file, or - for standard input (surrounding whitespace and the final newline are dropped)',
  },
];

export const module: ModuleSpec = {
  name: 'storage',
  commands: [
    {
      path: ['storage', 'list'],
      summary: 'List storage destinations',
      examples: ['backupctl storage list', 'backupctl storage list --provider cloud_a --region eu-central-1', 'backupctl storage list --sort -name -q'],
      method: 'GET',
      endpoint: '/storage',
      params: [
        {
          name: 'provider',
          in: 'query',
          type: 'enum',
          values: LIST_FILTER_PROVIDERS,
          aliases: providerAliases(LIST_FILTER_PROVIDERS),
          description: 'Only storage at this provider (the token or the published name)',
        },
        { name: 'region', in: 'query', type: 'string', description: 'Only storage in this region' },
        modifiedSince,
      ],
      list: { sort: ['id', 'name'], whole: true },
      output: { kind: 'list', schema: 'storage', columns: 'storage' },
    },
    {
      path: ['storage', 'add'],
      summary: 'Add a storage destination',
      description:
        '--region is required for every provider except custom; --endpoint (an S3-compatible URL) only for custom. ' +
        'Providers without keys (such as cloud_m, the service\'s own storage) take no --key or --secret.',
      examples: [
        'backupctl storage add --name primary --provider cloud_a --region eu-central-1 --bucket acme-backups --key AKIA... --secret-file secret.txt',
        'pass show minio | backupctl storage add --name minio --provider custom --endpoint https://minio.example.com:9000 --bucket backups --key admin --secret-file - -q',
      ],
      method: 'POST',
      endpoint: '/storage',
      params: [
        { name: 'name', in: 'body', type: 'string', required: true, description: 'Name of the destination' },
        {
          name: 'provider',
          in: 'body',
          type: 'enum',
          values: STORAGE_PROVIDERS,
          aliases: providerAliases(STORAGE_PROVIDERS),
          required: true,
          description: 'Storage provider (the token or the published name; the profile\'s provider-names says which is sent)',
        },
        { name: 'key', in: 'body', type: 'string', placeholder: 'key', requiredWhen: keyed, refusedWhen: keyless, description: 'Access key id' },
        ...secretParams,
        { name: 'bucket', in: 'body', type: 'string', required: true, description: 'Bucket the backups are written to' },
        {
          name: 'endpoint',
          in: 'body',
          type: 'url',
          requiredWhen: { provider: ['custom'] },
          placeholder: 'url',
          description: 'S3-compatible endpoint URL',
        },
        {
          name: 'region',
          in: 'body',
          type: 'string',
          requiredWhen: { provider: REGIONAL_PROVIDERS },
          description: 'Region of the bucket',
        },
      ],
      output: { kind: 'record', schema: 'storage', columns: 'storage' },
    },
    {
      path: ['storage', 'update'],
      summary: 'Rename a storage destination or change its keys',
      description: 'Keys cannot be changed for providers without keys (such as cloud_m).',
      examples: ['backupctl storage update 2 --name archive', 'backupctl storage update 2 --key AKIA... --secret-file new-secret.txt'],
      method: 'PATCH',
      endpoint: '/storage/{storage_id}',
      params: [
        storageId,
        { name: 'name', in: 'body', type: 'string', description: 'New name' },
        { name: 'key', in: 'body', type: 'string', placeholder: 'key', description: 'New access key id' },
        ...secretParams,
      ],
      // A PATCH without a body would change nothing yet look like success.
      checks: { nothingToUpdate: { what: 'storage {storage_id}' } },
      output: { kind: 'none', done: 'Updated storage {storage_id}.' },
    },
    {
      path: ['storage', 'delete'],
      summary: 'Delete a storage destination',
      examples: ['backupctl storage delete 2', 'backupctl storage delete 2 --yes'],
      method: 'DELETE',
      endpoint: '/storage/{storage_id}',
      params: [storageId],
      confirm: 'Delete storage {storage_id}?',
      output: { kind: 'none', done: 'Deleted storage {storage_id}.' },
    },
  ],
};
