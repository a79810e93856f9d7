// Public types of the emulator: what startEmulator takes and gives back.

export type FaultKind =
  | '429'
  | '500'
  | '502-html'
  | '503'
  | 'reset'
  | 'timeout'
  | 'truncated'
  | 'not-json'
  | 'slow-body'
  /** The files server answers 403 "Request has expired", as a store does for a signed URL past its time. */
  | 'expired';

export const FAULT_KINDS: readonly FaultKind[] = [
  '429',
  '500',
  '502-html',
  '503',
  'reset',
  'timeout',
  'truncated',
  'not-json',
  'slow-body',
  'expired',
];

export interface FaultRule {
  fault: FaultKind;
  /** Only requests with this method (case-insensitive). */
  method?: string;
  /**
   * Only requests whose path matches: a prefix such as `/v1/servers`, or a regular expression when the
   * text starts with `^` or holds one of `* + ? ( ) [ ] { } | \ $`. Without a path the rule hits every
   * API request but never the files server; give a `/files` path to fault downloads.
   */
  path?: string;
  /** Fault only the first N matching requests. */
  count?: number;
  /** Fault this share (0..1) of the matching requests, drawn from a seeded generator. */
  rate?: number;
  /** Retry-After for 429 (default 1) and 503 (none unless given): seconds or an HTTP date. */
  retryAfter?: number | string;
}

export type BackupOutcome = 'completed' | 'failed' | 'completed_with_errors';

export interface EmulatorOptions {
  /** API port; 0 or absent picks a free one. */
  port?: number;
  /** Files server port; 0 or absent picks a free one. */
  filesPort?: number;
  host?: string;
  /** The bearer token the emulator accepts; a random `emu_` + 32 hex characters unless given. */
  token?: string;
  seed?: 'demo' | 'empty';
  /** Delay before every API answer. */
  latencyMs?: number;
  faults?: FaultRule[];
  /** How started backups end (jobs whose name holds "fail" always fail). */
  backupOutcome?: BackupOutcome;
  /** Time per step of a started backup or manual snapshot (pending -> running -> done). Default 300 ms. */
  tickMs?: number;
  /** Adds a job named "bulk" holding this many completed backups (benchmarks of long lists). */
  bigJob?: number;
  /**
   * The emulator's clock at start, epoch ms: the seed's history is laid back from it and the
   * clock runs on from it in real time (`backupctl emulator --now`). Default: the real clock.
   */
  now?: number;
  /** How many recorded requests to keep (the newest); default 100,000. */
  maxRecorded?: number;
  /** Adds a job "damaged files" with one backup per planted fault (truncated, flipped byte, ...). */
  damagedFiles?: boolean;
  /** Every whole GET of a file serves different bytes (a new gzip MTIME): bit rot for `verify`'s ledger. */
  changingFiles?: boolean;
  /**
   * How long a signed URL holds, in ms, from when it is handed out (in a backup record or by POST
   * /v1/backups/{id}/download); the store answers 403 "Request has expired" after. Default: a week for
   * the URLs in records, an hour for download answers.
   */
  urlTtlMs?: number;
  /** Adds a job "big file" whose backup holds one .tar.gz of this many bytes, made while it is sent. */
  bigFile?: number;
  /** Adds a job "unsafe archive" whose backup is a .tar.gz with a `../` entry (restore-test must refuse it), and the jobs of
   *  restore-test's dump faults and formats (restore-fixtures.ts): "pg custom", "mariadb dump", "broken dump",
   *  "missing rows", "needs role", "broken mysql", "two databases". */
  archiveFaults?: boolean;
  /** Adds the jobs of the retention forecast (src/emulator/retention.ts): "retention lowered", "retention gfs", "retention guard". */
  retentionJobs?: boolean;
  /**
   * How the service speaks (issue 30 §7): `neutral` (default) as the interface document writes it,
   * `published` as the service's public API reference shows it (src/emulator/dialect.ts).
   */
  dialect?: 'neutral' | 'published';
  /** Adds the bad-night jobs (bad-night.ts): "file share", 20 normal nightly tar backups then two nights of ransomware,
   *  "share zip" (the same as a .zip), and "crm postgres", whose newest dump lost 90% of one table's rows. The demo runs with them. */
  badNight?: boolean;
  /** Adds this many jobs "fleet 0001" ... (fleet-jobs.ts), each with three nights of small file backups: a large fleet for tests and benchmarks. */
  fleetJobs?: number;
}

export interface RecordedRequest {
  /** Which of the two servers received it. */
  server: 'api' | 'files';
  method: string;
  /** Path without the query string. */
  path: string;
  /** Query as parsed; bracket keys kept whole (`tags[manual]`); repeated keys give arrays. */
  query: Record<string, string | string[]>;
  /** Request headers, lower-case names, including authorization. */
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, the raw text when not JSON, undefined when empty. */
  body: unknown;
  /** Date.now() on arrival. */
  time: number;
  /** Status answered, once answered (absent for reset and timeout faults). */
  status?: number;
  /** The fault injected into this request, if any. */
  fault?: FaultKind;
}

export interface Emulator {
  /** API base URL, e.g. http://127.0.0.1:41234 (the client adds /v1). */
  url: string;
  /** Base URL of the files server that signed download URLs point at. */
  filesUrl: string;
  token: string;
  /** Every API and files request received, oldest first (control requests excluded). */
  requests: RecordedRequest[];
  /** Replaces the fault rules (same as POST /__emulator/faults). */
  setFaults(rules: FaultRule[]): void;
  /** Empties `requests` in place. */
  clearRequests(): void;
  /** Stops both servers and ends every open socket, held ones included. */
  close(): Promise<void>;
}
