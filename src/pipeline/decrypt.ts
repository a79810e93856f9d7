// Decrypt on the way (issue 29 §5): the stage between the raw bytes of a file
// (hashed, counted and compared with the record and the ledger as they are
// stored, i.e. encrypted) and the content stage (inspect, restore sinks, the
// file written by `jobs backup download`), which then see the plaintext.
//
//   transfer -> raw bytes -> [sha256, size]            (unchanged)
//                         -> DecryptStage -> plaintext -> content checks, extra sinks
//
// Two ways to decrypt, both a Decryptor that opens one DecryptStage per file:
// - `commandDecryptor` (--decrypt-with CMD): `sh -c CMD` reads the file on
//   stdin and writes the plaintext on stdout. Its environment is backupctl's
//   without a single BACKUPCTL_* variable and without the database passwords
//   (PGPASSWORD, MYSQL_PWD), plus BACKUPCTL_ENCRYPTION_KEY (the backup record's
//   encryption_key) and BACKUPCTL_BACKUP_ID. Exiting non-zero is "could not decrypt".
// - `privateKeyDecryptor` (--private-key FILE): the service's documented scheme
//   (docs/verify.md "Encrypted backups"): the user's RSA key unwraps the
//   record's base64 encryption_key, which is the passphrase of an OpenSSL
//   `enc` AES-256 file. The exact parameters are not published, so the known
//   variants are tried on the first bytes and the one whose plaintext is of a
//   known kind (gzip, tar, zip, a dump, text) is used for the whole file:
//   RSA OAEP (SHA-1, SHA-256) or PKCS#1 v1.5; the unwrapped bytes as they are
//   or their first line (`-pass file:`); AES-256-CBC or CTR; the key from
//   EVP_BytesToKey with MD5 (OpenSSL < 1.1) or SHA-256 (1.1+), or PBKDF2
//   (SHA-256, 10000 rounds: `-pbkdf2`).
// A key or command that cannot decrypt is a DecryptError: the test could not
// be done (not-tested), never a bad backup. Its exit code is 15, as for a
// restore with no engine: backupctl lacked what the test needs.
import { spawn, type ChildProcess } from 'node:child_process';
import { constants, createDecipheriv, createHash, pbkdf2Sync, privateDecrypt, type Decipher, type KeyObject } from 'node:crypto';
import { ExitCode } from '../errors.js';
import { sanitize } from '../output/sanitize.js';
import { KINDS, sniffContent } from './kinds.js';
import { FinalTransferError } from './transfer.js';
import type { ByteSink } from './types.js';

/** Could not decrypt: the key, the passphrase or the command does not open the backup. Exit 15 (not-tested). */
// A FinalTransferError: thrown from a sink's write, it ends the transfer at once (no retry can mend it).
export class DecryptError extends FinalTransferError {
  constructor(message: string, details: string[] = []) {
    super(`could not decrypt: ${message}`, ExitCode.noRestoreEngine, details);
  }
}

/** The file to decrypt: its backup (id, the record's encryption_key) and its name. */
export interface DecryptTarget {
  backupId: string;
  /** The backup record's `encryption_key` (base64), or null when it names none. */
  encryptionKey: string | null;
  fileName: string;
}

/** The decrypt stage of one file: raw bytes in (write), plaintext out (to the sink it was opened with). */
export interface DecryptStage extends ByteSink {
  /** After the last raw byte: the rest of the plaintext is written out; throws DecryptError when it could not decrypt. */
  end(): Promise<void>;
  /** Stops everything (a child process is killed). */
  abort(): void;
}

export interface Decryptor {
  /** How it was asked for, for messages: "--private-key", "--decrypt-with". */
  readonly label: string;
  /** Whether a backup of this record is decrypted (the private key: only when the record names a key). */
  applies(target: DecryptTarget): boolean;
  open(target: DecryptTarget, out: ByteSink, signal: AbortSignal): DecryptStage;
}

// ---------------------------------------------------------------- what plaintext looks like

/**
 * Whether the first bytes are of a kind backupctl knows (or plain text): the sign a decryption variant was
 * right. THE sniffer decides (src/pipeline/kinds.ts): a kind added there is known here too. Encrypted kinds
 * are not plaintext. Two kinds are held to more than their magic, since a wrong variant gives random bytes
 * and dozens of variants are tried: a gzip must name deflate with no reserved flag, and data of no kind must
 * be text. Compressed streams backupctl does not read (bzip2, xz, zstd) are still the plaintext of a file
 * `jobs backup download` writes.
 */
export function looksLikePlaintext(head: Buffer): boolean {
  if (head.length === 0) return false;
  const kind = sniffContent(head);
  if (KINDS[kind].encrypted) return false;
  const at = (i: number, ...bytes: number[]) => bytes.every((b, j) => head[i + j] === b);
  if (kind === 'gzip') return head[2] === 0x08 && (head.length < 4 || head[3]! < 0x20);
  if (kind !== 'unknown') return true;
  if (at(0, 0x42, 0x5a, 0x68) || at(0, 0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00) || at(0, 0x28, 0xb5, 0x2f, 0xfd)) return true; // bzip2, xz, zstd
  // Text (a SQL dump, a checksum list): no control bytes but tab, newline, carriage return in the first 512 bytes.
  const sample = head.subarray(0, 512);
  if (sample.length < 16) return false;
  for (const b of sample) if (b === 0x7f || (b < 0x20 && b !== 9 && b !== 10 && b !== 13)) return false;
  // UTF-8 text decodes without replacement characters (a cut last character aside).
  return !sample.toString('utf8').slice(0, -4).includes('\ufffd');
}

/** A CBC plaintext's last block without its PKCS#7 padding; undefined when the end is no valid padding. */
function withoutPadding(plain: Buffer): Buffer | undefined {
  const n = plain.length ? plain[plain.length - 1]! : 0;
  if (n < 1 || n > 16 || n > plain.length) return undefined;
  for (let i = plain.length - n; i < plain.length; i++) if (plain[i] !== n) return undefined;
  return plain.subarray(0, plain.length - n);
}

/** The bytes carry an encryption header still (the command passed them through, or decrypted one layer of two): THE sniffer's encrypted kinds. */
function stillEncrypted(head: Buffer): boolean {
  return KINDS[sniffContent(head)].encrypted === true;
}

// ---------------------------------------------------------------- the built-in recipe (--private-key)

/** OpenSSL's EVP_BytesToKey with one round: key and IV from a passphrase and salt. */
function bytesToKey(hash: 'md5' | 'sha256', pass: Buffer, salt: Buffer, length: number): Buffer {
  const out: Buffer[] = [];
  let total = 0;
  let prev = Buffer.alloc(0);
  while (total < length) {
    prev = createHash(hash).update(prev).update(pass).update(salt).digest();
    out.push(prev);
    total += prev.length;
  }
  return Buffer.concat(out).subarray(0, length);
}

/** RSA with PKCS#1 v1.5 padding, unpadded by hand (Node refuses RSA_PKCS1_PADDING for privateDecrypt since the Marvin fix). */
function unwrapPkcs1(key: KeyObject, sealed: Buffer): Buffer | undefined {
  let em: Buffer;
  try {
    em = privateDecrypt({ key, padding: constants.RSA_NO_PADDING }, sealed);
  } catch {
    return undefined;
  }
  if (em[0] !== 0 || em[1] !== 2) return undefined;
  const sep = em.indexOf(0, 2);
  if (sep < 10) return undefined;
  return em.subarray(sep + 1);
}

/** The secrets the key may unwrap from the record's encryption_key, by the variants the service may use. */
function unwrapSecrets(key: KeyObject, encryptionKey: string): Array<{ how: string; secret: Buffer }> {
  const sealed = Buffer.from(encryptionKey, 'base64');
  const found: Array<{ how: string; secret: Buffer }> = [];
  for (const oaepHash of ['sha1', 'sha256']) {
    try {
      found.push({ how: `RSA-OAEP-${oaepHash.toUpperCase()}`, secret: privateDecrypt({ key, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash }, sealed) });
    } catch {
      // Not this variant (or not this key).
    }
  }
  const pkcs1 = unwrapPkcs1(key, sealed);
  if (pkcs1) found.push({ how: 'RSA-PKCS1-v1.5', secret: pkcs1 });
  return found;
}

/** The passphrases a secret stands for: itself, and its first line (`openssl enc -pass file:` reads one line). */
function passphrases(secret: Buffer): Buffer[] {
  const out = [secret];
  const nl = secret.indexOf(0x0a);
  if (nl >= 0) {
    const line = secret.subarray(0, nl > 0 && secret[nl - 1] === 0x0d ? nl - 1 : nl);
    if (line.length && !line.equals(secret)) out.push(line);
  }
  return out;
}

interface Variant {
  name: string;
  cipher: 'aes-256-cbc' | 'aes-256-ctr';
  key: Buffer;
  iv: Buffer;
}

/** Every key the variants give for one file (salt from its "Salted__" header, or none). */
function variants(secrets: Array<{ how: string; secret: Buffer }>, salt: Buffer | undefined): Variant[] {
  const out: Variant[] = [];
  for (const { how, secret } of secrets) {
    for (const pass of passphrases(secret)) {
      const kdfs: Array<[string, Buffer]> = [
        ['EVP_BytesToKey-MD5', bytesToKey('md5', pass, salt ?? Buffer.alloc(0), 48)],
        ['EVP_BytesToKey-SHA256', bytesToKey('sha256', pass, salt ?? Buffer.alloc(0), 48)],
      ];
      if (salt) kdfs.push(['PBKDF2-SHA256', pbkdf2Sync(pass, salt, 10_000, 48, 'sha256')]);
      for (const [kdf, material] of kdfs) {
        for (const cipher of ['aes-256-cbc', 'aes-256-ctr'] as const) {
          out.push({ name: `${how}, ${cipher.toUpperCase()}, ${kdf}`, cipher, key: material.subarray(0, 32), iv: material.subarray(32, 48) });
        }
      }
    }
  }
  return out;
}

/** The raw bytes needed before a variant is chosen: the 16-byte header and enough plaintext to sniff. */
const HEAD_BYTES = 16 + 4096;

/** The built-in recipe: see the top of this file. `key` is the user's RSA private key, already opened. */
export function privateKeyDecryptor(key: KeyObject): Decryptor {
  return {
    label: '--private-key',
    applies: (t) => typeof t.encryptionKey === 'string' && t.encryptionKey !== '',
    open(target, out) {
      let head: Buffer[] = [];
      let headBytes = 0;
      let decipher: Decipher | undefined;
      const label = `${sanitize(target.fileName)} of backup ${sanitize(target.backupId)}`;
      // `whole`: the raw bytes are the whole file (a file shorter than the head), so a CBC sample ends in its padding.
      const choose = async (raw: Buffer, whole: boolean) => {
        const salted = raw.subarray(0, 8).toString('latin1') === 'Salted__';
        const salt = salted ? raw.subarray(8, 16) : undefined;
        const body = salted ? raw.subarray(16) : raw;
        const secrets = unwrapSecrets(key, target.encryptionKey ?? '');
        if (!secrets.length) {
          throw new DecryptError(`the private key does not open the encryption_key of backup ${sanitize(target.backupId)} (tried RSA-OAEP with SHA-1 and SHA-256, and PKCS#1 v1.5): is it the key pair the job encrypts with?`);
        }
        const sample = body.subarray(0, body.length - (body.length % 16));
        for (const v of variants(secrets, salt)) {
          const d = createDecipheriv(v.cipher, v.key, v.iv);
          d.setAutoPadding(false);
          const plain = d.update(sample);
          // A short file's sample holds its last block: PKCS#7 padding (1 to 16 bytes of their own count) is no
          // control byte of the plaintext. Left in, a short checksum list read as "not text" on some nights.
          const last = whole && v.cipher === 'aes-256-cbc';
          const unpadded = last ? withoutPadding(plain) : plain;
          // An empty file (32 bytes stored: the header, then one block of padding alone): 16 bytes of 0x10 are
          // the sign of the right key (a wrong one gives them once in 2^128).
          const empty = last && unpadded !== undefined && unpadded.length === 0;
          if (!empty && !looksLikePlaintext(unpadded ?? plain)) continue;
          decipher = createDecipheriv(v.cipher, v.key, v.iv);
          await out.write(decipher.update(body));
          return;
        }
        throw new DecryptError(
          `${label}: no known variant of the scheme gives data of a known kind (tried RSA-OAEP/PKCS#1 v1.5, then OpenSSL enc AES-256-CBC/CTR with EVP_BytesToKey MD5/SHA-256 or PBKDF2${salted ? '' : '; the file has no "Salted__" header'}): another key, or another scheme (see --decrypt-with)`,
        );
      };
      return {
        async write(chunk) {
          if (decipher) {
            const plain = decipher.update(chunk);
            if (plain.length) await out.write(plain);
            return;
          }
          head.push(chunk);
          headBytes += chunk.length;
          if (headBytes >= HEAD_BYTES) {
            const raw = Buffer.concat(head);
            head = [];
            await choose(raw, false);
          }
        },
        async restart() {
          head = [];
          headBytes = 0;
          decipher = undefined;
          await out.restart();
        },
        async end() {
          if (!decipher) {
            const raw = Buffer.concat(head);
            head = [];
            await choose(raw, true);
          }
          try {
            const last = decipher!.final();
            if (last.length) await out.write(last);
          } catch {
            // Bad padding at the end: the last block is damaged (or cut). The content stage sees a plaintext that
            // stops short and judges it (a gzip ends early: failed), as it would the same damage unencrypted.
          }
        },
        abort() {
          decipher = undefined;
        },
      };
    },
  };
}

// ---------------------------------------------------------------- --decrypt-with CMD

/** Variables never passed to a --decrypt-with command: backupctl's own (the token among them) and the database passwords. */
const WITHHELD = /^(BACKUPCTL_.*|PGPASSWORD|PGPASSFILE|MYSQL_PWD|MYSQL_PASSWORD|MONGODB_URI|DATABASE_URL)$/i;

/** The environment of a --decrypt-with command: see the top of this file. */
export function decryptCommandEnv(env: NodeJS.ProcessEnv, target: DecryptTarget): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !WITHHELD.test(k)) out[k] = v;
  out.BACKUPCTL_ENCRYPTION_KEY = target.encryptionKey ?? '';
  out.BACKUPCTL_BACKUP_ID = target.backupId;
  return out;
}

/** --decrypt-with CMD: a filter run with `sh -c` for each file. */
export function commandDecryptor(command: string, env: NodeJS.ProcessEnv): Decryptor {
  return {
    label: '--decrypt-with',
    applies: () => true,
    open(target, out, signal) {
      const label = `${sanitize(target.fileName)} of backup ${sanitize(target.backupId)}`;
      let run: CommandRun | undefined;
      const start = () => (run ??= new CommandRun(command, decryptCommandEnv(env, target), out, signal, label));
      return {
        async write(chunk) {
          await start().write(chunk);
        },
        async restart() {
          await run?.kill();
          run = undefined;
          await out.restart();
        },
        async end() {
          await start().end();
        },
        abort() {
          void run?.kill();
        },
      };
    },
  };
}

/** One run of the command: raw bytes to its stdin, its stdout to `out` in order, with backpressure both ways. */
class CommandRun {
  private readonly child: ChildProcess;
  private readonly closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private pending: Promise<void> = Promise.resolve();
  private failure: unknown;
  private stderrTail = '';
  private first = true;
  private stdinBroken = false;
  private killed = false;

  constructor(
    command: string,
    env: NodeJS.ProcessEnv,
    private readonly out: ByteSink,
    signal: AbortSignal,
    private readonly label: string,
  ) {
    this.child = spawn('sh', ['-c', command], { env, stdio: ['pipe', 'pipe', 'pipe'], signal });
    this.closed = new Promise((resolve) => {
      this.child.on('close', (code, sig) => resolve({ code, signal: sig }));
      this.child.on('error', (err) => {
        this.failure ??= err;
        resolve({ code: null, signal: null });
      });
    });
    this.child.stdin!.on('error', () => {
      // EPIPE: the command stopped reading; its exit status says why.
      this.stdinBroken = true;
    });
    this.child.stderr!.setEncoding('utf8').on('data', (s: string) => {
      this.stderrTail = (this.stderrTail + s).slice(-2000);
    });
    const stdout = this.child.stdout!;
    stdout.on('data', (chunk: Buffer) => {
      stdout.pause();
      this.pending = this.pending
        .then(async () => {
          if (this.failure) return;
          if (this.first) {
            this.first = false;
            if (stillEncrypted(chunk)) throw new DecryptError(`--decrypt-with: the command's output for ${this.label} still carries an encryption header`);
          }
          await this.out.write(chunk);
        })
        .catch((err) => {
          this.failure ??= err;
          this.child.kill('SIGKILL');
        })
        .finally(() => stdout.resume());
    });
  }

  async write(chunk: Buffer): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.stdinBroken) return;
    const stdin = this.child.stdin!;
    if (!stdin.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          stdin.off('drain', done);
          stdin.off('close', done);
          resolve();
        };
        stdin.once('drain', done);
        stdin.once('close', done);
        void this.closed.then(done);
      });
    }
  }

  async end(): Promise<void> {
    if (!this.stdinBroken) this.child.stdin!.end();
    const { code, signal } = await this.closed;
    await this.pending;
    if (this.failure instanceof DecryptError) throw this.failure;
    if (this.failure) throw new DecryptError(`--decrypt-with for ${this.label}: ${sanitize(this.failure instanceof Error ? this.failure.message : String(this.failure))}`);
    if (code !== 0) {
      const tail = sanitize(this.stderrTail.trim().split('\n').pop() ?? '');
      throw new DecryptError(`--decrypt-with: the command ${code === null ? `was killed (${signal})` : `exited ${code}`} for ${this.label}${tail ? `: ${tail}` : ''}`);
    }
    if (this.first) throw new DecryptError(`--decrypt-with: the command wrote nothing for ${this.label}`);
  }

  async kill(): Promise<void> {
    if (this.killed) return;
    this.killed = true;
    this.failure ??= new Error('restarted');
    this.child.kill('SIGKILL');
    await this.closed;
    await this.pending.catch(() => {});
  }
}
