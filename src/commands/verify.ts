// `backupctl verify`: proves a backup can be read back. Every file of the
// chosen backups is fetched through its signed URL (no Authorization, resumed
// on a broken transfer, nothing written to disk) and checked on the stream:
// size against the record, sha256 against the ledger, and the content
// (src/pipeline/content/). Exit 11 when a file fails, 18 when --check meets an
// unchecked backup, 9 when nothing matched.
import type { Format, Handler } from '../contract/context.js';
import type { ModuleSpec } from '../contract/spec.js';
import { jobArg } from '../resources/common.js';
import { CliError, ExitCode, UncheckedError, UsageError, VerificationFailedError } from '../errors.js';
import { verifyDocumentSchema } from '../verify/document.js';
import { READBACK_CALLS, readbackHandler, readbackParams } from './readback.js';

/** Its own -o formats (besides table, json, ndjson, tsv, -q and --check). */
const FORMATS: ReadonlyArray<Format> = ['prometheus'];

export const module: ModuleSpec = {
  name: 'verify',
  commands: [
    {
      path: ['verify'],
      summary: 'Read backups back and check every file: size, sha256, gzip/tar/zip/dump structure',
      description:
        'Fetches each file of the chosen backups through its signed URL, as `jobs backup download` does (no ' +
        'Authorization header, resumed on a broken transfer), but writes nothing to disk: every byte goes through ' +
        'streaming checks. The byte count is compared with the size the record states (within the precision of its ' +
        'text: "12.5 MB" allows 12.45..12.55 MB), the sha256 with the ledger, and the content, sniffed from the bytes: ' +
        'gzip is decompressed whole (CRC-32 and length of every member), tar headers, entries and end blocks are read, ' +
        'a zip\'s central directory and the CRC-32 of every entry, and a SQL dump must end with the marker mysqldump or ' +
        'pg_dump writes last, whatever the record says about encryption. A backup\'s own .sha256 or SHA256SUMS list is ' +
        'parsed and its other files checked against it. Bytes with an OpenSSL ("Salted__"), OpenPGP or age header are ' +
        '"encrypted"; other bytes are "not inspected" ("encrypted" when the record names a key). Such files are checked ' +
        'for size and hash only and never count as verified: the summary says "content not checked", and --strict makes ' +
        'them fail. Decompression bombs are refused: overlapping zip entries, more than 100000 zip entries ' +
        '(BACKUPCTL_VERIFY_MAX_ZIP_ENTRIES), more than 64GiB inflated from a zip (BACKUPCTL_VERIFY_MAX_INFLATED), a gzip ' +
        'expanding more than 200 times past its first 64 MiB (BACKUPCTL_VERIFY_MAX_RATIO); see docs/verify.md.\n\n' +
        'The ledger ($XDG_STATE_HOME/backupctl/verify-ledger.json, else ~/.local/state/backupctl/) keeps the sha256 of ' +
        'every file that verified; a later verify that reads other bytes for it fails with "changed since <date>".\n\n' +
        'Each backup checked gets a mark, kept per service and backup in the state folder (marks.json), where status and report ' +
        'read it: passed (every file read and its content checked), unchecked (size and hash only), failed (the bytes are bad), ' +
        'not-tested (a file could not be read: network, store or service; it never makes a job failing).\n\n' +
        'Without a selection, the newest completed backup (--latest). Exit 0 when every backup passed, 11 when a file ' +
        'failed (with --strict, also when one was not inspected), 6 when a file could not be read (not-tested; 4 when the store refused the signed URL), 9 when no backup matched. ' +
        'With --check, an unchecked backup exits 18 (not a failure: its content was not checked), unless --allow-unchecked. --check is for cron: one summary line per backup on stdout and one line ' +
        'per failed file on stderr; --lock, --jitter and --healthcheck-url work as for jobs backup start. -o prometheus ' +
        'prints metrics per job; --output-file writes the output atomically. -o ndjson prints each file as it is ' +
        'judged, then one line per backup (backupctl schema verify describes --json). Each backup read gets a fingerprint in the ' +
        'catalog (backupctl anomalies, ls, find, diff); --skip-catalog records none.',
      examples: [
        'backupctl verify 3f2b1c9e-8d4a-4b7e-9c1d-2a5e6f7a8b9c --latest',
        'backupctl verify "shop mysql" --since 7d --parallel 4',
        'backupctl verify "shop mysql" --sample 3 --since 30d --json',
        'backupctl verify "shop mysql" --latest --check --lock verify-shop --healthcheck-url https://hc-ping.com/<uuid>',
        'backupctl verify "shop mysql" --latest -o prometheus --output-file /var/lib/node_exporter/textfile/verify-shop.prom',
      ],
      params: [
        { ...jobArg(), in: 'local' },
        { name: 'backup', in: 'local', type: 'uuid', positional: true, complete: 'backups', description: 'One backup id (else --latest, --since or --sample)' },
        { name: 'latest', in: 'local', type: 'boolean', description: 'The newest completed backup of the job (the default)' },
        { name: 'since', in: 'local', type: 'datetime', placeholder: 'age|datetime', description: 'Every successful (completed) backup with files created since then (7d, 24h, or ISO 8601)' },
        { name: 'sample', in: 'local', type: 'integer', min: 1, max: 1000, placeholder: 'n', description: 'N backups with files drawn at random (from --since when given, else from all)' },
        { name: 'parallel', in: 'local', type: 'integer', min: 1, max: 16, default: 2, placeholder: 'n', description: 'Files read at once' },
        { name: 'strict', in: 'local', type: 'boolean', description: 'A file whose content was not checked (encrypted, or of a format backupctl does not read) fails (exit 11)' },
        { name: 'check', in: 'local', type: 'boolean', description: 'For cron: a summary line per backup on stdout, failed files on stderr, no progress bar; passes on passed only' },
        { name: 'allow_unchecked', in: 'local', type: 'boolean', description: 'With --check: a backup checked for size and hash only (unchecked) passes' },
        ...readbackParams,
      ],
      output: { kind: 'object', schema: 'verify' },
      handler: 'verify',
      alsoCalls: READBACK_CALLS,
      dryRunInHandler: true,
      extraFormats: [...FORMATS],
      perProfile: { rows: '', columns: ['job.name', 'verdict', 'summary.backups', 'summary.files', 'summary.files_failed'] },
    },
  ],
};

export const schemas = { verify: verifyDocumentSchema };

type VerifyDocument = import('../verify/document.js').VerifyDocument;

interface Prep {
  parallel: number;
  strict: boolean;
  /** Only --check refuses an unchecked backup (a person at a terminal reads the words). */
  refuseUnchecked: boolean;
}

/** verify: every backup selected, the read pipeline with no sink of its own. */
const verify = readbackHandler<VerifyDocument, Prep>({
  name: 'verify',
  formats: FORMATS,
  select: 'all',
  dryRunNote: "Then the job's backups, and a GET of every file's signed URL (no Authorization); nothing is written to disk.",
  async prepare(v) {
    if (v.allow_unchecked === true && v.strict === true) throw new UsageError('--allow-unchecked lets an unchecked backup pass, --strict makes it fail: give one');
    return { parallel: Number(v.parallel ?? 2), strict: v.strict === true, refuseUnchecked: v.check === true && v.allow_unchecked !== true };
  },
  noBackup: (label, sel) => `job ${label} has no ${sel.latest ? 'completed backup' : `backup with files matching ${sel.text}`} to verify`,
  noFiles: (label) => `the chosen backups of job ${label} have no files`,
  async run(r, o) {
    const { verifyBackups } = await import('../verify/run.js');
    return verifyBackups(r.backups, {
      sinks: r.sinks,
      onOutcome: r.onOutcome,
      job: { id: r.job.id, name: r.job.name },
      selection: r.selection.text,
      transfer: r.transfer(r.ctx.signal),
      ledger: r.ledger,
      decrypt: r.decrypt,
      urls: r.urls,
      strict: o.strict,
      inspect: { bounds: r.bounds },
      parallel: o.parallel,
      now: () => new Date(),
      progress: r.progress,
      signal: r.ctx.signal,
      onFile: r.onFile,
    });
  },
  async marks(doc, o) {
    const { verifyMarks } = await import('../verify/view.js');
    return { kind: 'verify', entries: verifyMarks(doc, { refuseUnchecked: o.refuseUnchecked }) };
  },
  async view() {
    const view = await import('../verify/view.js');
    return { fileColumns: view.fileColumns, summaryText: (doc, width) => view.summaryText(doc, width), prometheus: view.verifyPrometheus, };
  },
  async finish(doc, o, label) {
    const { failureLines, untestedLines } = await import('../verify/view.js');
    if (doc.verdict === 'failed') {
      const n = doc.summary.files_failed;
      throw new VerificationFailedError(`${n} of ${doc.summary.files} file${doc.summary.files === 1 ? '' : 's'} of job ${label} failed verification`, failureLines(doc));
    }
    if (doc.verdict === 'not-tested') {
      const files = doc.backups.flatMap((b) => b.files).filter((f) => f.verdict === 'not-tested');
      const code = files.find((f) => f.exit_code !== undefined)?.exit_code ?? ExitCode.transient;
      throw new CliError(
        `${files.length} file${files.length === 1 ? '' : 's'} of job ${label} could not be read: not tested (nothing is known of ${files.length === 1 ? 'its' : 'their'} bytes; the job is not marked failing)`,
        code,
        untestedLines(doc),
      );
    }
    if (doc.verdict === 'unchecked' && o.refuseUnchecked) {
      throw new UncheckedError(
        `job ${label}: ${doc.summary.files_unchecked} of ${doc.summary.files} file${doc.summary.files === 1 ? '' : 's'} checked for size and hash only, content not checked (unchecked): --check passes on passed only; --allow-unchecked accepts it`,
      );
    }
    return { kind: 'empty' };
  },
});

export const handlers: Record<string, Handler> = { verify };
