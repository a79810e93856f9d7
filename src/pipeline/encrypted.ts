// What a command that reads content says of an encrypted backup it was given
// no way to decrypt (ls, find, diff, restore-file, scan, anomalies; verify and
// restore-test on stderr), and how a fingerprint in the catalog tells such a
// file. No imports beyond sanitize: the views load it.
import { sanitize } from '../output/sanitize.js';

/** "encrypted: give --private-key or set jobs.<job>.private_key", with the job's name (bounded, sanitized). */
export function encryptedHint(job: string): string {
  return `encrypted: give --private-key or set jobs.${sanitize(job).slice(0, 200)}.private_key`;
}

/**
 * Whether a file of a fingerprint holds bytes that were encrypted and not decrypted: its read said so
 * (`encrypted: true`), or (recorded before the catalog said) the backup's record names a key and nothing
 * could be read of the file.
 */
export function undecrypted(file: { encrypted?: boolean; kind: string; note?: string }, recordEncrypted: boolean): boolean {
  return file.encrypted === true || (recordEncrypted && file.kind === 'other' && file.note === undefined);
}
