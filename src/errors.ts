// Typed errors. Handlers throw these; src/main.ts alone turns them into a line
// on stderr and an exit code. Keep this file free of imports: it loads at start-up.

export const ExitCode = {
  ok: 0,
  refused: 1,
  usage: 2,
  config: 3,
  auth: 4,
  notFound: 5,
  transient: 6,
  outcomeUnknown: 7,
  waitFailed: 8,
  empty: 9,
  locked: 10,
  verifyFailed: 11,
  /** plan: the service differs from the file (a drift check in CI). */
  changesPending: 12,
  /** report --check: a job broke a threshold (--max-missed, --min-success). */
  thresholdBroken: 13,
  /** restore-test: the restore or a check after it (row counts, --assert, --exec) failed. */
  restoreFailed: 14,
  /**
   * The test could not be done here (not tested, never a bad backup): restore-test has no engine to restore
   * into (no --into, no local server binaries, no PGlite); or verify, restore-test or download could not
   * decrypt an encrypted backup (src/pipeline/decrypt.ts DecryptError: a wrong key, passphrase, scheme or filter).
   */
  noRestoreEngine: 15,
  /** retention --check (and status's guard): the newest backup that passed verify or restore-test is predicted to expire before a newer one has passed. */
  retentionGuard: 16,
  /** anomalies --check: a backup differs from its job's history the way damage or ransomware does. */
  anomalyFound: 17,
  /**
   * verify --check, restore-test: the backup was read but its content not proven (unchecked: encrypted without a key,
   * a format not read; restore-test also structure-only with --check). Not a failure of the bytes; --allow-unchecked passes it.
   */
  unchecked: 18,
  interrupted: 130,
  /** SIGTERM: handled like Ctrl-C (work aborted, .part files removed), exit 128 + 15. */
  terminated: 143,
} as const;

export class CliError extends Error {
  readonly exitCode: number;
  /** Extra lines printed after the message (hints, field errors). */
  readonly details: string[];
  constructor(message: string, exitCode: number, details: string[] = []) {
    super(message);
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.details = details;
  }
}

/** Bad flags or input caught before anything was sent: exit 2. */
export class UsageError extends CliError {
  constructor(message: string, details: string[] = []) {
    super(message, ExitCode.usage, details);
  }
}

/** No token, bad base URL, unreadable or corrupt config: exit 3. */
export class ConfigError extends CliError {
  constructor(message: string, details: string[] = []) {
    super(message, ExitCode.config, details);
  }
}

export interface RequestInfo {
  method: string;
  /** Path as shown to the user, e.g. /v1/servers?page=2 (never carries the token). */
  path: string;
}

/** The service answered with an error status. Exit code by status. */
export class ApiError extends CliError {
  readonly status: number;
  readonly request: RequestInfo;
  readonly serviceMessage: string | undefined;
  /** Laravel's 422 `errors` map: field -> messages. */
  readonly fieldErrors: Record<string, string[]>;
  readonly body: unknown;
  constructor(opts: {
    status: number;
    request: RequestInfo;
    serviceMessage?: string;
    fieldErrors?: Record<string, string[]>;
    body?: unknown;
    exitCode?: number;
  }) {
    const fieldErrors = opts.fieldErrors ?? {};
    const details = Object.entries(fieldErrors).flatMap(([field, msgs]) => msgs.map((m) => `  ${field}: ${m}`));
    const msg = `${opts.status} ${statusText(opts.status)}: ${opts.request.method} ${opts.request.path}${
      opts.serviceMessage ? `: ${opts.serviceMessage}` : ''
    }`;
    super(msg, opts.exitCode ?? exitCodeForStatus(opts.status), details);
    this.status = opts.status;
    this.request = opts.request;
    this.serviceMessage = opts.serviceMessage;
    this.fieldErrors = fieldErrors;
    this.body = opts.body;
  }
}

/** Network failure, timeout, or 429/5xx that outlasted the retries: exit 6. */
export class TransientError extends CliError {
  readonly request: RequestInfo | undefined;
  constructor(message: string, request?: RequestInfo, details: string[] = []) {
    super(message, ExitCode.transient, details);
    this.request = request;
  }
}

/** A non-idempotent request may have reached the service: exit 7. */
export class OutcomeUnknownError extends CliError {
  constructor(message: string, details: string[] = []) {
    super(message, ExitCode.outcomeUnknown, details);
  }
}

/** An awaited operation ended failed (--wait): exit 8. */
export class WaitFailedError extends CliError {
  constructor(message: string, details: string[] = []) {
    super(message, ExitCode.waitFailed, details);
  }
}

/** A wait that ran out of time (--wait-timeout): exit 6. */
export class WaitTimeoutError extends CliError {
  constructor(message: string, details: string[] = []) {
    super(message, ExitCode.transient, details);
  }
}

/** A check found nothing (--fail-if-empty, latest --max-age, status --check): exit 9. */
export class EmptyResultError extends CliError {
  constructor(message: string, details: string[] = []) {
    super(message, ExitCode.empty, details);
  }
}

/** Another run holds the lock: exit 10. */
export class LockedError extends CliError {
  constructor(message: string, details: string[] = []) {
    super(message, ExitCode.locked, details);
  }
}

/** `verify` read a file back and it failed a check: exit 11. */
export class VerificationFailedError extends CliError {
  constructor(message: string, details: string[] = []) {
    super(message, ExitCode.verifyFailed, details);
  }
}

/** verify --check / restore-test: the content was not checked (unchecked), which is not a failure: exit 18. */
export class UncheckedError extends CliError {
  constructor(message: string, details: string[] = []) {
    super(message, ExitCode.unchecked, details);
  }
}

/** SIGINT or an aborted prompt: exit 130. `details` say what goes on without us (a started backup). */
export class InterruptedError extends CliError {
  constructor(message = 'Interrupted', details: string[] = []) {
    super(message, ExitCode.interrupted, details);
  }
}

/** The one wording for a missing token, whichever command finds it missing: exit 3. */
export function noTokenError(profile: string, details: string[] = []): ConfigError {
  return new ConfigError(`no API token for profile "${profile}"`, ['  Run `backupctl auth login`, or set BACKUPCTL_TOKEN.', ...details]);
}

export function exitCodeForStatus(status: number): number {
  if (status === 401 || status === 403) return ExitCode.auth;
  if (status === 404) return ExitCode.notFound;
  if (status === 408 || status === 429 || status >= 500) return ExitCode.transient;
  return ExitCode.refused;
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  300: 'Multiple Choices',
  301: 'Moved Permanently',
  302: 'Found',
  303: 'See Other',
  304: 'Not Modified',
  307: 'Temporary Redirect',
  308: 'Permanent Redirect',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  419: 'Page Expired',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export function statusText(status: number): string {
  return STATUS_TEXT[status] ?? (status >= 500 ? 'Server Error' : status >= 400 ? 'Client Error' : 'Unexpected Status');
}
