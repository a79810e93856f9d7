// Encryption keys (real endpoints beyond the interface, see api-facts.md):
// the public half of a 4096-bit RSA pair made locally; backups are encrypted with it.
import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import type { Column, CommandInput, Handler } from '../contract/context.js';
import type { ModuleSpec } from '../contract/spec.js';
import { UsageError } from '../errors.js';
import { record } from './common.js';

const keySchema = record({ id: z.nullish(z.union([z.int(), z.string()])), name: z.nullish(z.string()), public_key: z.nullish(z.string()) });
export const schemas = { encryptionKey: keySchema };

/**
 * SHA-256 of the key's DER bytes, base64 as ssh-keygen shows fingerprints. The start of the PEM
 * text would not do: every 4096-bit RSA key begins with the same base64 prefix.
 */
export function keyFingerprint(pem: unknown): string {
  if (typeof pem !== 'string') return '';
  const body = pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  if (!body) return '';
  return `SHA256:${createHash('sha256').update(Buffer.from(body, 'base64')).digest('base64').replace(/=+$/, '')}`;
}

export const columns: Record<string, Column[]> = {
  encryptionKey: [
    { key: 'id', header: 'ID' },
    { key: 'name', header: 'Name' },
    { key: 'fingerprint', header: 'Fingerprint', get: (k) => keyFingerprint(k.public_key) },
    { key: 'created_at', header: 'Created', format: 'time' },
    { key: 'public_key', header: 'Public key', extra: true },
  ],
};

export const module: ModuleSpec = {
  name: 'encryption-keys',
  commands: [
    {
      path: ['encryption-keys', 'create'],
      summary: 'Upload the public half of an RSA key pair to encrypt backups with',
      description: 'Make the pair locally: openssl genrsa -out backup.key 4096 && openssl rsa -in backup.key -pubout -out backup.pub. Keep backup.key safe: it is the only way to decrypt.',
      examples: ['backupctl encryption-keys create --name prod --public-key-file backup.pub', 'openssl rsa -in backup.key -pubout | backupctl encryption-keys create --name prod --public-key-file -'],
      method: 'POST',
      endpoint: '/encryption-keys',
      params: [
        { name: 'name', in: 'body', type: 'string', required: true, description: 'Name of the key' },
        { name: 'public_key', flag: 'public-key-file', in: 'body', type: 'text-file', trim: 'line', required: true, description: 'PEM public key file (or - for stdin)' },
      ],
      // A private key or a text that is no PEM public key is refused before anything is sent or printed.
      validator: 'publicKey',
      output: { kind: 'record', schema: 'encryptionKey', columns: 'encryptionKey' },
      handler: 'createKey',
    },
    {
      path: ['encryption-keys', 'delete'],
      summary: 'Delete an encryption key',
      examples: ['backupctl encryption-keys delete 5 --yes'],
      method: 'DELETE',
      endpoint: '/encryption-keys/{id}',
      params: [{ name: 'id', flag: 'id', in: 'path', type: 'string', positional: true, required: true, description: 'Encryption key id', names: 'encryption-keys' }],
      confirm: 'Delete encryption key {id}?',
      output: { kind: 'none', done: 'Deleted encryption key {id}.' },
    },
  ],
};

const PEM = /-----BEGIN (RSA )?PUBLIC KEY-----[\s\S]+-----END (RSA )?PUBLIC KEY-----/;

/** The validation hook of `create` (runs before --dry-run: a private key is never printed). */
const publicKey = (input: CommandInput): void => {
  const pem = String(input.values.public_key ?? '');
  if (/PRIVATE KEY-----/.test(pem)) {
    throw new UsageError('invalid value for --public-key-file: this is a PRIVATE key; nothing was sent', [
      '  Give its public half: openssl rsa -in backup.key -pubout -out backup.pub',
    ]);
  }
  if (!PEM.test(pem)) {
    throw new UsageError('invalid value for --public-key-file: not a PEM public key (-----BEGIN PUBLIC KEY-----)', [
      '  Make one with: openssl rsa -in backup.key -pubout -out backup.pub',
    ]);
  }
};

export const checks = { publicKey };

/** Where the id of a key is found when the service does not say it (issue 30 §5). */
export const KEY_ID_HINT = [
  '  The service lists no encryption keys and its answer to a new key carries no id (the published service\'s does not).',
  '  Find the id in the service\'s web dashboard (its encryption keys page), or in `backupctl jobs get <job> --json`',
  '  (encryption_key_id) of a job the key is attached to; then: backupctl jobs encryption-key set <job> <key-id>.',
];

/**
 * `encryption-keys create`: the key as the service answers it; when that answer has no id, it
 * says so plainly on stderr in every output mode (with -q, stdout stays empty). The key was
 * made: the exit code is 0, so a script does not retry and upload it twice (docs/published-service.md).
 */
const createKey: Handler = async (input, ctx) => {
  const { runEndpoint } = await import('../cli/generic.js');
  const result = await runEndpoint(input, ctx, async () => ({ module, schemas, columns, checks }));
  if (result.kind !== 'record' || ctx.globals.dryRun) return result;
  const id = (result.record as { id?: unknown } | null)?.id;
  if (id === undefined || id === null || id === '') {
    ctx.note(`The service returned no id for encryption key ${JSON.stringify(String(input.values.name ?? ''))}: it was created, but -q has no id to print and \`jobs encryption-key set\` needs one.`);
    for (const line of KEY_ID_HINT) ctx.note(line);
  }
  return result;
};

export const handlers: Record<string, Handler> = { createKey };
