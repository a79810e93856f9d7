// The JSON of scan, anomalies, ls, find and diff: what `backupctl schema <command>`
// describes. Lenient, as the CLI is: objects keep fields they do not name.
import * as z from 'zod/mini';

const d = <T extends z.ZodMiniType>(schema: T, text: string): T => schema.check(z.describe(text)) as T;
const obj = z.looseObject;

const fileFingerprint = d(
  obj({
    name: z.string(),
    bytes: d(z.number(), 'Bytes as stored (before gunzip)'),
    gzip: z.boolean(),
    kind: d(z.string(), 'tar, sql, zip or other'),
    archive: z.optional(d(obj({ entries: z.number(), files: z.number(), high_entropy: z.number(), sampled: z.number() }), 'A tar archive: entries, extensions, entropy, ransom notes, onion addresses')),
    sql: z.optional(d(obj({ dialect: z.string(), tables: z.record(z.string(), z.number()) }), 'A SQL dump: rows per table')),
    listing: z.optional(z.string()),
    note: z.optional(z.string()),
    encrypted: z.optional(d(z.boolean(), 'Its bytes were encrypted and read without a key: nothing of its content is known')),
  }),
  'One file of the backup',
);

export const fingerprintSchema = d(
  obj({
    version: z.number(),
    backup_id: z.string(),
    job_id: z.nullable(z.string()),
    created_at: z.nullable(z.string()),
    recorded_at: z.string(),
    recorded_by: d(z.string(), 'verify, restore-test or scan'),
    read_verdict: d(z.string(), 'passed: every file verified on the way; unchecked; failed'),
    size_bytes: z.number(),
    duration_s: z.nullable(z.number()),
    files: z.array(fileFingerprint),
  }),
  'The fingerprint of one backup in the catalog',
);

export const scanSchema = d(
  obj({
    job: obj({ id: z.string(), name: z.nullable(z.string()) }),
    since: z.string(),
    read: d(z.number(), 'Backups read now (the others were in the catalog)'),
    fingerprints: z.array(fingerprintSchema),
  }),
  'backupctl scan --json',
);

const finding = obj({
  signal: d(z.string(), 'ransom-note, onion-address, high-entropy, renamed, vanished, new-extension, table-shrunk, table-vanished, size, entries'),
  message: z.string(),
  evidence: d(z.record(z.string(), z.unknown()), 'The numbers, paths and baseline behind it'),
});
const backupRef = z.nullable(obj({ id: z.string(), created_at: z.nullable(z.string()) }));

export const anomaliesSchema = d(
  obj({
    generated_at: z.string(),
    since: z.string(),
    thresholds: z.record(z.string(), z.number()),
    summary: obj({ jobs: z.number(), backups: z.number(), anomalous: z.number(), acknowledged: z.number(), clean: z.number(), unchecked: z.number() }),
    jobs: z.array(
      obj({
        job: obj({ id: z.string(), name: z.nullable(z.string()) }),
        backups: z.array(
          obj({
            backup_id: z.string(),
            created_at: z.nullable(z.string()),
            verdict: d(z.string(), 'clean, anomalous, acknowledged (accepted with --ack), unchecked (its read did not pass verify\'s checks)'),
            findings: z.array(finding),
            baseline_size: z.number(),
            last_clean: d(backupRef, 'The newest clean backup before this one'),
            ack: z.optional(obj({ at: z.string(), note: z.nullable(z.string()) })),
            encrypted: z.optional(d(z.literal(true), 'unchecked because it is encrypted and was read without a key (--private-key, --decrypt-with, jobs.<job>.private_key)')),
          }),
        ),
        last_clean: d(backupRef, 'The newest clean (or acknowledged) backup of the job'),
      }),
    ),
  }),
  'backupctl anomalies --json',
);

const entry = obj({
  path: z.string(),
  type: d(z.string(), 'f file, d folder, l symbolic link, h hard link, o other'),
  size: z.number(),
  mode: z.number(),
  mtime: z.string(),
});

export const lsSchema = d(z.array(obj({ ...entry.shape, uid: z.number(), gid: z.number(), crc32: z.nullable(z.string()), link: z.optional(z.string()) })), 'backupctl ls --json: the entries in path order');
export const findSchema = d(z.array(obj({ backup_id: z.string(), created_at: z.nullable(z.string()), ...entry.shape })), 'backupctl find --json: the matching entries, newest backup first');

const counts = obj({ added: z.number(), removed: z.number() });
export const diffSchema = d(
  obj({
    backup_a: z.string(),
    backup_b: z.string(),
    files: obj({ added: z.number(), removed: z.number(), changed: z.number(), metadata: z.number() }),
    dirs: counts,
    others: counts,
    bytes: obj({ added: z.number(), removed: z.number(), changed_before: z.number(), changed_after: z.number() }),
    tables: z.optional(z.array(obj({ table: z.string(), change: z.string(), rows_before: z.nullable(z.number()), rows_after: z.nullable(z.number()) }))),
    changes: z.array(obj({ change: d(z.string(), '+ added, - removed, M content, T type, U mode or owner'), path: z.string(), type: z.string(), size: z.number() })),
  }),
  'backupctl diff --json',
);
