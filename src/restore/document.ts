// The restore-test document: what `restore-test --json` prints and `schema
// restore-test` describes. `-o ndjson` prints the same records one per line:
// every file ({"type":"file", ...}) as it is judged, then one line per backup
// ({"type":"backup", ...} without `files`).
import * as z from 'zod/mini';
import { KIND_IDS } from '../pipeline/kinds.js';

const describe = <T extends z.ZodMiniType>(schema: T, text: string): T => schema.check(z.describe(text)) as T;

export const RESTORE_FILE_VERDICTS = ['restored', 'structure-checked', 'extracted', 'failed', 'not-restorable', 'not-tested'] as const;
/** The words of the marks (src/state/marks.ts) that a restore test can give. */
export const RESTORE_VERDICTS = ['passed', 'structure-only', 'unchecked', 'failed', 'not-tested'] as const;
export type RestoreVerdict = (typeof RESTORE_VERDICTS)[number];
const RESTORE_VERDICT_TEXT =
  'passed: every file restored (or extracted) and counted, every check held; structure-only: parsed, not restored (a mongodump archive), ' +
  'no recovery time; unchecked: nothing could be restored here (encrypted, or a kind backupctl does not restore), only size and hash checked; ' +
  'failed: the bytes or the data are bad; not-tested: the test could not run (network, store, service, scratch server, no engine)';
/** restore-test's `kind`: the pipeline's registry of kinds, the same words as verify's. */
export const DUMP_KINDS = KIND_IDS;

const engineSchema = describe(
  z.object({
    name: describe(z.string(), 'Which engine restored the file: postgres, mysql, sqlite, mongo-archive or files (backupctl help kinds says what each does with each kind)'),
    runs: describe(z.enum(['server', 'local', 'embedded']), 'Where it ran: server: the --into server; local: an ephemeral server from local binaries; embedded: inside backupctl (PGlite, SQLite, the mongodump walker, the extraction)'),
    mode: describe(z.enum(['server', 'local', 'embedded', 'bson', 'extract']), 'Kept for scripts written before name and runs: runs for a database engine, bson for a mongodump archive, extract for a file archive'),
    product: describe(z.string(), 'PostgreSQL, MariaDB, MySQL, PGlite, SQLite, bson, tar, zip'),
    version: z.nullable(z.string()),
    rights: z.optional(describe(z.string(), 'SQL dumps: the rights the dump ran with (a throwaway login owning only the scratch database, the --into user checked or trusted with --trust-into-user, PGlite in a child process)')),
  }),
  'What restored the file',
);

export const restoreFileSchema = describe(
  z.object({
    backup_id: z.string(),
    name: describe(z.string(), 'File name as the backup record gives it'),
    kind: describe(z.enum(DUMP_KINDS), 'What the bytes hold, sniffed from the content (never the name)'),
    verdict: describe(
      z.enum(RESTORE_FILE_VERDICTS),
      'restored: loaded and checked; structure-checked: a mongodump archive, every document parsed and counted, not restored; ' +
        'extracted: a file archive extracted and counted against its listing (and --exec passed); failed: see failure; ' +
        'not-restorable: encrypted or of a kind backupctl does not restore (said, not hidden); not-tested: the file could not be read, or the ' +
        'scratch server could not be used (see failure): nothing is known of it',
    ),
    engine: z.nullable(engineSchema),
    database: describe(z.nullable(z.string()), 'The scratch database restored into (kept with --keep)'),
    tables: describe(
      z.array(z.object({ table: z.string(), expected: describe(z.number(), 'Rows (documents) the dump holds'), restored: describe(z.nullable(z.number()), 'Rows found after the restore') })),
      'Each table (collection) with its rows',
    ),
    rows: describe(z.number(), 'Rows (documents) restored'),
    files: describe(z.nullable(z.number()), 'Files extracted from a file archive'),
    bytes: describe(z.nullable(z.number()), 'Bytes extracted from a file archive (a mongo archive: its decompressed bytes)'),
    bytes_read: describe(z.number(), 'Bytes read from the storage'),
    resumed: describe(z.boolean(), 'The transfer broke and was resumed with a Range request'),
    read_seconds: describe(z.number(), 'Time to read the file from the storage'),
    restore_seconds: describe(z.number(), 'Time from its first byte handed to the engine until the checks ended (overlaps the read: the file streams)'),
    check: describe(
      z.object({ verdict: z.enum(['verified', 'not-inspected', 'encrypted', 'failed', 'not-tested']), format: z.string(), reason: z.nullable(z.string()) }),
      "verify's checks on the way (gzip CRC, tar headers, size); failed: exit 11; not-tested: the file could not be read (network, store, service)",
    ),
    failure: describe(
      z.nullable(z.object({ message: z.string(), line: z.optional(z.number()), statement: z.optional(z.string()), untested: z.optional(z.boolean()) })),
      'Why the restore or a check failed; untested: true when the test could not run (the scratch server unreachable or refusing the login): not-tested, not failed',
    ),
    warnings: describe(z.array(z.string()), 'What was skipped or noted (a role that does not exist, a kept folder, ...)'),
    assertions: z.array(z.object({ sql: z.string(), ok: z.boolean(), value: z.nullable(z.string()), error: z.optional(z.string()) })),
    exec: describe(
      z.nullable(
        z.object({ command: z.string(), exit_code: z.nullable(z.number()), signal: z.nullable(z.string()), timed_out: z.boolean(), output_tail: z.string(), seconds: z.number() }),
      ),
      '--exec run inside the extracted folder',
    ),
  }),
  'One file of the backup, read and restored',
);

export const restoreBackupSchema = describe(
  z.object({
    id: z.string(),
    created_at: z.nullable(z.string()),
    verdict: describe(z.enum(RESTORE_VERDICTS), RESTORE_VERDICT_TEXT),
    files_total: z.number(),
    files_failed: z.number(),
    tables: z.number(),
    rows: z.number(),
    bytes_read: z.number(),
    read_seconds: describe(z.number(), 'Time to read every file'),
    restore_seconds: describe(z.number(), 'Time to restore and check every file'),
    total_seconds: describe(z.number(), 'Recovery time: from the first byte read to the last check (read and restore overlap)'),
    reason: describe(z.nullable(z.string()), 'The first failure'),
    files: z.array(restoreFileSchema),
  }),
  'One backup: its files and its recovery time',
);

export const restoreDocumentSchema = describe(
  z.object({
    generated_at: describe(z.string(), 'When the test ran (ISO 8601)'),
    job: z.object({ id: z.string(), name: z.nullable(z.string()) }),
    selection: describe(z.string(), 'latest, or backup <id>'),
    verdict: describe(
      z.enum(RESTORE_VERDICTS),
      `${RESTORE_VERDICT_TEXT}. Exit: failed 14 (11 when a file failed the checks on the way); not-tested the exit code of its cause (6 network or service, 15 no engine or scratch server); unchecked 18, structure-only 18 with --check, both 0 with --allow-unchecked`,
    ),
    summary: z.object({
      backups: z.number(),
      files: z.number(),
      files_failed: z.number(),
      tables: z.number(),
      rows: z.number(),
      bytes_read: z.number(),
      read_seconds: z.number(),
      restore_seconds: z.number(),
      total_seconds: z.number(),
    }),
    backups: z.array(restoreBackupSchema),
  }),
  'backupctl restore-test: a backup read back and restored, with its checks. -o ndjson prints the same records one per line: ' +
    'each file as it is judged ({"type":"file"} and the file), then each backup ({"type":"backup"} and the backup without files)',
);

export type RestoreFileResult = z.infer<typeof restoreFileSchema>;
export type RestoreBackupResult = z.infer<typeof restoreBackupSchema>;
export type RestoreDocument = z.infer<typeof restoreDocumentSchema>;
