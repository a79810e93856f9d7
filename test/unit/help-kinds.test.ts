// `backupctl help kinds`: the registry of content kinds (src/pipeline/kinds.ts) as a user reads it:
// for each kind, the format --json names, what verify checks and counts, and what restore-test
// does with it. Literal lines, so a registry entry whose words change or go blank shows here.
import { describe, expect, it } from 'vitest';
import { LATER_TOPICS } from '../../src/cli/help-topics.js';
import { topics } from '../../src/commands/topics.js';
import { KIND_IDS, KINDS } from '../../src/pipeline/kinds.js';

const text = topics.kinds!.text;

/** The three lines of one kind. */
function entry(format: string): string[] {
  const lines = text.split('\n');
  const at = lines.indexOf(lines.find((l) => l.startsWith(`  ${format}: `)) ?? '');
  expect(at, format).toBeGreaterThanOrEqual(0);
  return lines.slice(at, at + 3).map((l) => l.trim());
}

describe('help kinds', () => {
  it('has one entry per kind of the registry, in its order', () => {
    const formats = text
      .split('\n')
      .filter((l) => /^ {2}\S/.test(l))
      .map((l) => l.trim().split(':')[0]);
    expect(formats).toEqual(KIND_IDS.map((id) => KINDS[id].format));
  });

  it.each([
    [
      'mysqldump',
      'a MySQL dump',
      'content_bytes: the SQL bytes; the end marker "-- Dump completed" when the dump opens with its banner',
      'loaded into a scratch MySQL/MariaDB database (--into mysql://..., else a local server), every table counted',
    ],
    [
      'pg_dump',
      'a PostgreSQL plain dump',
      'content_bytes: the SQL bytes; the end marker "-- PostgreSQL database dump complete" when the dump opens with its banner',
      'loaded into a scratch PostgreSQL database (--into postgres://..., else a local server, else PGlite), every table counted',
    ],
    [
      'pg_dump-custom',
      'a PostgreSQL custom-format dump',
      'entries: the objects of its table of contents; every data block the table of contents announces must follow, whole',
      'loaded into a scratch PostgreSQL database (--into postgres://..., else a local server, else PGlite) through pg_restore, every table counted',
    ],
    [
      'mongodump',
      'a mongodump archive',
      "entries: the documents, every one parsed; each collection's CRC-64 against the archive's",
      'parsed document by document and counted per collection (structure-only: not loaded)',
    ],
    [
      'tar',
      'a tar archive',
      'entries: the tar entries (every header checksum); content_bytes: the bytes of its files; the end blocks',
      'extracted into a private folder and counted against its own listing; --exec runs inside',
    ],
    ['zip', 'a zip archive', 'entries: the central directory; content_bytes: their declared sizes; every CRC-32', 'extracted into a private folder and counted against its own listing; --exec runs inside'],
    ['sha256sums', 'a sha256 list', "entries: its lines (every one parsed); the backup's other files are checked against it", 'not restored'],
    ['openssl-enc', 'OpenSSL enc encrypted data', 'size and hash only', 'not restored: encrypted (decrypted first with --private-key or --decrypt-with)'],
    ['age', 'age encrypted data', 'size and hash only', 'not restored: encrypted (decrypted first with --private-key or --decrypt-with)'],
    ['openpgp', 'OpenPGP encrypted data', 'size and hash only', 'not restored: encrypted (decrypted first with --private-key or --decrypt-with)'],
    ['gzip', 'a gzip inside a gzip', 'size and hash only', 'not restored'],
    ['data', 'data of a kind backupctl does not read', 'size and hash only', 'not restored'],
  ])('%s: %s', (format, words, verify, restore) => {
    expect(entry(format)).toEqual([`${format}: ${words}`, `verify:        ${verify}`, `restore-test:  ${restore}`]);
  });

  it('is listed among the topics with its summary', () => {
    expect(topics.kinds!.summary).toBe('What verify and restore-test make of each kind of file');
    // The names the help command and completion know before the text is loaded.
    expect([...LATER_TOPICS]).toEqual(Object.keys(topics));
  });
});
