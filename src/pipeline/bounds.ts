// The one home of the bounds that keep a hostile backup from growing without
// end, for verify and restore-test alike (docs/verify.md "Bounds" is their one
// table). Each has a default and a setting in the environment; a bad value
// (0, negative, a fraction, `lots`) is a configuration error (exit 3) naming
// the variable, raised before anything is sent.
//
//   maxZipEntries      BACKUPCTL_VERIFY_MAX_ZIP_ENTRIES  entries a zip may list (verify reads the listing; restore-test too)
//   maxInflatedBytes   BACKUPCTL_VERIFY_MAX_INFLATED     bytes all the entries of a zip may inflate to
//   maxGzipRatio       BACKUPCTL_VERIFY_MAX_RATIO        how many times its size a gzip may expand (past GZIP_RATIO_FLOOR):
//                                                        verify's check and restore-test's gunzip (SQL dumps too)
//   maxExtractEntries  BACKUPCTL_RESTORE_MAX_ENTRIES     entries (files, folders, links) restore-test extracts from a tar or zip
//   maxExtractBytes    BACKUPCTL_RESTORE_MAX_BYTES       bytes restore-test writes when it extracts a tar or zip; before each
//                                                        entry the free space of the folder's file system is checked too
//   maxStatement       BACKUPCTL_RESTORE_MAX_STATEMENT   characters one statement, string, comment run or COPY line of a SQL
//                                                        dump may hold in the statement reader (restore-test's restore and
//                                                        the catalog's row counts, verify's too)
import { ConfigError } from '../errors.js';
import { parseSize } from '../config/size.js';

export interface Bounds {
  /** Entries a zip may list (BACKUPCTL_VERIFY_MAX_ZIP_ENTRIES). */
  maxZipEntries: number;
  /** Bytes all the entries of a zip may inflate to (BACKUPCTL_VERIFY_MAX_INFLATED). */
  maxInflatedBytes: number;
  /** How many times its own size a gzip may expand (BACKUPCTL_VERIFY_MAX_RATIO), judged once it has inflated GZIP_RATIO_FLOOR bytes. */
  maxGzipRatio: number;
  /** Entries restore-test extracts from one tar or zip (BACKUPCTL_RESTORE_MAX_ENTRIES). */
  maxExtractEntries: number;
  /** Bytes restore-test writes extracting one tar or zip (BACKUPCTL_RESTORE_MAX_BYTES). */
  maxExtractBytes: number;
  /** Characters the statement reader holds for one statement, string, comment run or COPY line (BACKUPCTL_RESTORE_MAX_STATEMENT). */
  maxStatement: number;
}

/** The bounds of verify's content inspection (src/pipeline/content/). */
export type InspectBounds = Pick<Bounds, 'maxZipEntries' | 'maxInflatedBytes' | 'maxGzipRatio' | 'maxStatement'>;

export const DEFAULT_BOUNDS: Bounds = {
  maxZipEntries: 100_000,
  maxInflatedBytes: 64 * 1024 ** 3,
  maxGzipRatio: 200,
  maxExtractEntries: 100_000,
  maxExtractBytes: 64 * 1024 ** 3,
  maxStatement: 64 * 1024 * 1024,
};

/** A gzip's ratio is judged only past this many inflated bytes: a small file that compresses well is no bomb. */
export const GZIP_RATIO_FLOOR = 64 * 1024 * 1024;

/** The settings that raise (or lower) the bounds, as docs/verify.md names them. */
export const BOUND_SETTINGS = {
  maxZipEntries: 'BACKUPCTL_VERIFY_MAX_ZIP_ENTRIES',
  maxInflatedBytes: 'BACKUPCTL_VERIFY_MAX_INFLATED',
  maxGzipRatio: 'BACKUPCTL_VERIFY_MAX_RATIO',
  maxExtractEntries: 'BACKUPCTL_RESTORE_MAX_ENTRIES',
  maxExtractBytes: 'BACKUPCTL_RESTORE_MAX_BYTES',
  maxStatement: 'BACKUPCTL_RESTORE_MAX_STATEMENT',
} as const satisfies Record<keyof Bounds, string>;

/**
 * Free space an extraction leaves on its file system, whatever the bounds say:
 * 1 GiB, or 5% of a file system smaller than 20 GiB.
 */
export function diskReserve(fsBytes: number): number {
  return Math.min(1024 ** 3, Math.floor(fsBytes * 0.05));
}

/**
 * Why a gzip that inflated `decompressed` bytes from the first `compressed`
 * ones is refused as a decompression bomb, or undefined. The one rule for
 * verify's check and restore-test's gunzip.
 */
export function gzipRatioRefusal(compressed: number, decompressed: number, maxGzipRatio: number): string | undefined {
  if (decompressed <= GZIP_RATIO_FLOOR || decompressed <= maxGzipRatio * compressed) return undefined;
  return (
    `gzip: expands more than ${maxGzipRatio} times its size (${compressed} bytes gave ${decompressed} and more): ` +
    `refused as a decompression bomb; raise the bound with ${BOUND_SETTINGS.maxGzipRatio}`
  );
}

const count = (text: string) => (/^\d+$/.test(text) ? Number(text) : NaN);
const size = (text: string) => (/^\s*-/.test(text) ? NaN : parseSize(text));

const PARSERS: Record<keyof Bounds, { parse: (text: string) => number; hint: string }> = {
  maxZipEntries: { parse: count, hint: 'a whole number of entries (such as 500000)' },
  maxInflatedBytes: { parse: size, hint: 'a size (such as 200GiB)' },
  maxGzipRatio: { parse: count, hint: 'a whole number (such as 1000)' },
  maxExtractEntries: { parse: count, hint: 'a whole number of entries (such as 500000)' },
  maxExtractBytes: { parse: size, hint: 'a size (such as 200GiB)' },
  maxStatement: { parse: size, hint: 'a size (such as 256MiB)' },
};

/**
 * Why the statement reader stops: a statement, string, comment run or COPY line of `max`
 * characters and more, from line `line`. The one wording for restore-test's restore and the catalog.
 */
export function statementBoundRefusal(max: number, line: number): string {
  return (
    `a statement, string, comment run or COPY line longer than ${max} characters (from line ${line}) is over the reader's bound: ` +
    `${BOUND_SETTINGS.maxStatement}=${max} (raise it, such as ${BOUND_SETTINGS.maxStatement}=256MiB, for a dump that needs it)`
  );
}

/**
 * Every bound, from the environment given (the command context's, never
 * process.env) over the defaults. A value that is not a whole number or size
 * above 0 is a configuration error (exit 3) naming the variable.
 */
export function boundsFromEnv(env: NodeJS.ProcessEnv): Bounds {
  const bounds: Bounds = { ...DEFAULT_BOUNDS };
  for (const key of Object.keys(PARSERS) as Array<keyof Bounds>) {
    const name = BOUND_SETTINGS[key];
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const text = raw.trim();
    const { parse, hint } = PARSERS[key];
    let value: number;
    try {
      value = parse(text);
    } catch {
      value = NaN;
    }
    if (!Number.isSafeInteger(value) || value <= 0) throw new ConfigError(`${name}=${JSON.stringify(raw)} is not ${hint} above 0`);
    bounds[key] = value;
  }
  return bounds;
}
