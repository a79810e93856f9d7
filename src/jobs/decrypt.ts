// The decrypt flags of verify, restore-test and `jobs backup download`
// (issue 29 §5), and the per-job settings of the config file that stand for
// them so cron lines stay short:
//
//   --decrypt-with 'CMD'        config: jobs.<job>.decrypt_with
//   --private-key FILE          config: jobs.<job>.private_key
//   --private-key-pass-file F   config: jobs.<job>.private_key_pass_file
//                               else BACKUPCTL_PRIVATE_KEY_PASSPHRASE, else a prompt on a terminal
//
// A flag wins over the job's settings; <job> in the config is the job's name
// or its id. The passphrase and the key are read here, never printed, never
// in argv; the Decryptor itself is src/pipeline/decrypt.ts.
import type { Context } from '../contract/context.js';
import type { ParamSpec } from '../contract/spec.js';
import { InterruptedError, UsageError } from '../errors.js';
import { sanitize } from '../output/sanitize.js';
import type { Decryptor } from '../pipeline/decrypt.js';

// The pipeline's decrypt module (node:crypto, node:child_process) loads only when a command decrypts.
const pipelineDecrypt = () => import('../pipeline/decrypt.js');
async function decryptError(message: string, details?: string[]): Promise<Error> {
  return new (await pipelineDecrypt()).DecryptError(message, details);
}

/** The environment variable a private key's passphrase may come from. */
export const PASSPHRASE_ENV = 'BACKUPCTL_PRIVATE_KEY_PASSPHRASE';

export const decryptParams: ParamSpec[] = [
  {
    name: 'decrypt_with',
    in: 'local',
    type: 'string',
    placeholder: 'command',
    description:
      'Decrypt on the way with this filter (sh -c): the file on stdin, the plaintext on stdout; BACKUPCTL_ENCRYPTION_KEY and BACKUPCTL_BACKUP_ID in its environment (config: jobs.<job>.decrypt_with)',
  },
  {
    name: 'private_key',
    in: 'local',
    type: 'string',
    placeholder: 'file',
    description: "Decrypt on the way with the job's RSA private key (PEM), the service's scheme (config: jobs.<job>.private_key)",
  },
  {
    name: 'private_key_pass_file',
    in: 'local',
    type: 'string',
    placeholder: 'file',
    description: `A file holding the private key's passphrase (else ${PASSPHRASE_ENV}, else a prompt on a terminal)`,
  },
];

/** The per-job settings the config file may hold (src/config/types.ts JobSettings). */
export type JobDecryptSettings = { private_key?: string; private_key_pass_file?: string; decrypt_with?: string };

/** The job's settings in the profile, by its id or its name (`nameOf` asks for the name only when some job has settings). */
async function jobSettings(ctx: Context, job: { id: string; name: string | null }, nameOf?: () => Promise<string | null>): Promise<JobDecryptSettings> {
  const [{ openContextConfig }, { resolveProfileName }] = await Promise.all([import('../cli/context.js'), import('../config/index.js')]);
  const store = await openContextConfig(ctx);
  const jobs = store.profile(resolveProfileName(ctx.globals, ctx.env, store)).jobs ?? {};
  if (Object.hasOwn(jobs, job.id)) return jobs[job.id]!;
  if (!Object.keys(jobs).length) return {};
  const name = job.name ?? (nameOf ? await nameOf() : null);
  return (name !== null && Object.hasOwn(jobs, name) ? jobs[name] : undefined) ?? {};
}

/**
 * The decryption flags as given, before anything is sent (exit 2): both ways at once, an empty filter, and a
 * --private-key or --private-key-pass-file that is not a readable file. What a key file holds (a wrong key, a
 * wrong passphrase) is judged once it is opened: exit 15.
 */
export async function checkDecryptFlags(values: Record<string, unknown>): Promise<void> {
  if (typeof values.decrypt_with === 'string' && typeof values.private_key === 'string') {
    throw new UsageError('--decrypt-with and --private-key are two ways to decrypt: give one');
  }
  if (typeof values.decrypt_with === 'string' && !values.decrypt_with.trim()) throw new UsageError('invalid value for --decrypt-with: an empty command');
  const { access, stat } = process.getBuiltinModule('node:fs/promises') as typeof import('node:fs/promises');
  const { R_OK } = (process.getBuiltinModule('node:fs') as typeof import('node:fs')).constants;
  for (const [key, flag] of [['private_key', '--private-key'], ['private_key_pass_file', '--private-key-pass-file']] as const) {
    const file = values[key];
    if (typeof file !== 'string') continue;
    const problem = await stat(file).then(
      (st) => (st.isFile() ? access(file, R_OK).then(() => undefined, (err: NodeJS.ErrnoException) => `cannot read it (${err.code ?? err.message})`) : 'not a regular file'),
      (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? 'no such file' : `cannot read it (${err.code ?? err.message})`),
    );
    if (problem) throw new UsageError(`invalid value "${sanitize(file)}" for ${flag}: ${problem}`);
  }
}

async function readSmallFile(file: string, what: string): Promise<Buffer> {
  const { readFile, stat } = process.getBuiltinModule('node:fs/promises') as typeof import('node:fs/promises');
  try {
    const st = await stat(file);
    if (!st.isFile()) throw new Error('not a regular file');
    if (st.size > 1024 * 1024) throw new Error('larger than 1 MiB');
    return await readFile(file);
  } catch (err) {
    throw await decryptError(`cannot read ${what} ${sanitize(file)}: ${sanitize((err as NodeJS.ErrnoException).code ?? (err as Error).message)}`);
  }
}

async function promptPassphrase(ctx: Context, file: string): Promise<string> {
  const { password } = await import('../util/prompts.js');
  try {
    return await password({ message: `Passphrase of ${sanitize(file)}:`, mask: '*' }, { input: ctx.io.stdin, output: ctx.io.stderr, signal: ctx.signal });
  } catch (err) {
    const name = (err as Error).name;
    if (name === 'ExitPromptError' || name === 'AbortPromptError' || name === 'CancelPromptError') throw new InterruptedError();
    throw err;
  }
}

/**
 * The Decryptor a command runs with: from its flags, else the job's settings
 * in the config; undefined when neither asks for one. A key that cannot be
 * opened is a DecryptError (exit 15: not tested), before any file is read.
 */
export async function decryptorFor(
  ctx: Context,
  values: Record<string, unknown>,
  job: { id: string; name: string | null },
  nameOf?: () => Promise<string | null>,
): Promise<Decryptor | undefined> {
  await checkDecryptFlags(values);
  const flagged = typeof values.decrypt_with === 'string' || typeof values.private_key === 'string';
  const saved = flagged ? {} : await jobSettings(ctx, job, nameOf);
  const command = typeof values.decrypt_with === 'string' ? values.decrypt_with : saved.decrypt_with;
  const keyFile = typeof values.private_key === 'string' ? values.private_key : saved.private_key;
  if (command !== undefined && keyFile !== undefined) {
    throw new UsageError(`the settings of job ${sanitize(job.name ?? job.id)} give both decrypt_with and private_key: keep one`);
  }
  if (command !== undefined) return (await pipelineDecrypt()).commandDecryptor(command, ctx.env);
  if (keyFile === undefined) return undefined;
  const pem = await readSmallFile(keyFile, 'the private key');
  const passFile = typeof values.private_key_pass_file === 'string' ? values.private_key_pass_file : saved.private_key_pass_file;
  const { createPrivateKey } = process.getBuiltinModule('node:crypto') as typeof import('node:crypto');
  const encryptedPem = /-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type:\s*4,ENCRYPTED/.test(pem.toString('latin1'));
  let passphrase: string | undefined;
  if (encryptedPem) {
    if (passFile !== undefined) passphrase = (await readSmallFile(passFile, 'the passphrase file')).toString('utf8').replace(/\r?\n$/, '');
    else if (ctx.env[PASSPHRASE_ENV] !== undefined) passphrase = ctx.env[PASSPHRASE_ENV];
    else if (ctx.io.stdinIsTTY) passphrase = await promptPassphrase(ctx, keyFile);
    else {
      throw await decryptError(`the private key ${sanitize(keyFile)} is protected by a passphrase, and none was given`, [
        `  Give --private-key-pass-file FILE, set ${PASSPHRASE_ENV}, or run on a terminal to be asked.`,
      ]);
    }
  }
  let key;
  try {
    key = createPrivateKey({ key: pem, format: 'pem', passphrase });
  } catch {
    // Never the key's text nor the passphrase in the message.
    throw await decryptError(`cannot open the private key ${sanitize(keyFile)}${encryptedPem ? ': a wrong passphrase?' : ': not a PEM private key'}`);
  }
  if (key.asymmetricKeyType !== 'rsa') throw await decryptError(`the private key ${sanitize(keyFile)} is a ${key.asymmetricKeyType} key; the service seals backups with RSA`);
  return (await pipelineDecrypt()).privateKeyDecryptor(key);
}
