// The verify document: what `verify --json` prints and `schema verify`
// describes. `-o ndjson` prints the same records one per line: every file
// ({"type":"file", ...}) as it is judged, then one line per backup
// ({"type":"backup", ...} without `files`).
import * as z from 'zod/mini';

export const FILE_VERDICTS = ['verified', 'not-inspected', 'encrypted', 'failed', 'not-tested'] as const;
export type FileVerdict = (typeof FILE_VERDICTS)[number];

/**
 * The words of the marks (src/state/marks.ts) that a verify can give: passed: every file's content checked;
 * unchecked: none failed, but some were checked for size and hash only; failed: one failed; not-tested: none
 * failed, but one could not be read (network, store, service).
 */
export const BACKUP_VERDICTS = ['passed', 'unchecked', 'failed', 'not-tested'] as const;
const VERDICT_TEXT =
  'passed: every file read and its content checked; unchecked: no file failed, but some were checked for size and hash only (content not checked); ' +
  'failed: a file failed (its bytes are bad); not-tested: no file failed, but one could not be read (network, store or service): nothing is known of it';

const describe = <T extends z.ZodMiniType>(schema: T, text: string): T => schema.check(z.describe(text)) as T;

export const fileResultSchema = describe(
  z.object({
    backup_id: describe(z.string(), 'The backup the file belongs to'),
    name: describe(z.string(), 'File name as the backup record gives it'),
    verdict: describe(
      z.enum(FILE_VERDICTS),
      'verified: size, hash and content checked; not-inspected: size and hash only, a format backupctl does not read; ' +
        'encrypted: size and hash only, the bytes carry an encryption header (OpenSSL "Salted__", OpenPGP, age) or are of no ' +
        'known format in a backup whose record names an encryption key; failed: see reasons (with --strict, a file not ' +
        'inspected fails too); not-tested: the file could not be read (network, store, service), see reasons',
    ),
    format: describe(z.string(), 'Sniffed from the bytes, not the name: tar.gz, tar, gzip, zip, mysqldump.gz, pg_dump.gz, sha256sums, openssl-enc, openpgp, age, data, ...; not-read when the transfer failed before any byte (refused for its size), unknown when it failed part way'),
    stated_size: describe(z.nullable(z.string()), "The size the backup record states ('744 bytes', '12.5 MB')"),
    bytes: describe(z.number(), 'Bytes read'),
    entries: describe(z.nullable(z.number()), 'Entries of a tar or zip archive'),
    content_bytes: describe(z.nullable(z.number()), 'Total size of the entries of an archive, or the decompressed bytes of a gzip or dump'),
    sha256: describe(z.nullable(z.string()), 'SHA-256 of the bytes read (null when the transfer failed)'),
    first_seen: describe(z.nullable(z.string()), 'When the ledger first recorded this hash for this file (ISO 8601)'),
    seconds: describe(z.number(), 'Time to read and check the file'),
    mb_per_s: describe(z.number(), 'Throughput in MiB (2^20 bytes) per second'),
    resumed: describe(z.boolean(), 'The transfer broke and was resumed with a Range request'),
    reasons: describe(z.array(z.string()), 'Why the file failed (empty when it did not), or a note such as "encrypted: size and hash only"'),
    exit_code: describe(z.optional(z.int()), 'not-tested: the exit code of what kept the file from being read (6: network, store or service)'),
  }),
  'One file of a backup, read back and checked',
);

export const backupResultSchema = describe(
  z.object({
    id: describe(z.string(), 'Backup id'),
    created_at: describe(z.nullable(z.string()), 'As the service sent it'),
    status: describe(z.nullable(z.string()), 'Backup status'),
    encrypted: describe(z.boolean(), 'The backup record has an encryption_key (the bytes are sniffed all the same)'),
    verdict: describe(z.enum(BACKUP_VERDICTS), VERDICT_TEXT),
    files_total: z.number(),
    files_failed: z.number(),
    files_unchecked: describe(z.number(), 'Files checked for size and hash only (not-inspected or encrypted): their content was not checked'),
    bytes_read: z.number(),
    seconds: z.number(),
    files: z.array(fileResultSchema),
  }),
  'One backup: its files and a summary',
);

export const verifyDocumentSchema = describe(
  z.object({
    generated_at: describe(z.string(), 'When the verify ran (ISO 8601)'),
    job: z.object({ id: z.string(), name: z.nullable(z.string()) }),
    selection: describe(z.string(), 'latest, backup, since <age>, or sample N'),
    strict: describe(z.boolean(), '--strict: a file not inspected is a failure'),
    verdict: describe(z.enum(BACKUP_VERDICTS), `The worst verdict of the backups: ${VERDICT_TEXT}. failed is exit 11; not-tested the exit code of its cause (6); unchecked exit 18 with --check unless --allow-unchecked (with --strict its files are failed: exit 11)`),
    summary: z.object({ backups: z.number(), files: z.number(), files_failed: z.number(), files_unchecked: z.number(), bytes_read: z.number(), seconds: z.number() }),
    backups: z.array(backupResultSchema),
  }),
  'backupctl verify: every file of every chosen backup read back and checked. -o ndjson prints the same records one per ' +
    'line: each file as it is judged ({"type":"file"} and the file), then each backup ({"type":"backup"} and the backup without files)',
);

export type FileResult = z.infer<typeof fileResultSchema>;
export type BackupResult = z.infer<typeof backupResultSchema>;
export type VerifyDocument = z.infer<typeof verifyDocumentSchema>;
