// Types shared by the command runner, the handlers, the output layer and the
// config layer. Types only: nothing here costs anything at start-up.
import type { Readable, Writable } from 'node:stream';
import type { CommandSpec, HttpMethod, ModuleSpec } from './spec.js';

/** Global options, as commander parses them (see src/cli/program.ts). */
export interface Globals {
  profile?: string;
  baseUrl?: string;
  output?: string;
  json?: boolean;
  quiet?: boolean;
  columns?: string;
  /** false with --no-headers */
  headers?: boolean;
  debug?: boolean;
  timeout?: string;
  /** false with --no-color */
  color?: boolean;
  yes?: boolean;
  configDir?: string;
  dryRun?: boolean;
  /** --jq <expr>: JSON output filtered by jq. */
  jq?: string;
  /** false with --no-trunc: tables keep ids whole and cut no cell. */
  trunc?: boolean;
}

export interface IO {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
  /** Terminal width for tables (stdout columns, else 80). */
  columns: number;
}

export type OutputFormat = 'table' | 'json' | 'ndjson' | 'tsv';

/**
 * What a handler renders: the global formats, -q, a command's own -o formats
 * (its spec's extraFormats) and --check's summary lines. One vocabulary for
 * every handler; each names the part it renders with Extract<Format, ...>.
 */
export type Format = OutputFormat | 'quiet' | 'check' | 'prometheus' | 'md' | 'html';

export interface OutputOptions {
  format: OutputFormat;
  quiet: boolean;
  /** Columns chosen with --columns (keys or headers, case-insensitive). */
  columns?: string[];
  noHeaders: boolean;
  /** Colour on stdout: decided once from --no-color, NO_COLOR, FORCE_COLOR and the TTY. */
  color: boolean;
  /** Pretty JSON on a terminal, compact when piped. */
  pretty: boolean;
  /** --jq: print the JSON output through this jq expression (format is json). */
  jq?: string;
  /**
   * A table on a terminal shows each UUID as its first 8 characters (as docker and git do);
   * JSON, tsv, -q and a table in a pipe or with --no-trunc keep them whole.
   */
  shortIds?: boolean;
  /** --no-trunc: a table is not fitted to the terminal; no cell is cut, no column left out. */
  noTrunc?: boolean;
  /**
   * Animated output on stderr (the spinner, the download progress bar), when stderr is a
   * terminal that can redraw a line (not TERM=dumb); the spinner coloured or not.
   */
  animation?: { color: boolean };
}

/** How one column of a resource is shown (doctl's displayer, written once per resource). */
export interface Column {
  /** Key used by --columns and as the TSV/ndjson field name. */
  key: string;
  /** Header in table mode. */
  header: string;
  /** The raw value from the record, as JSON has it (tsv prints this); default: record[key] (dotted keys walk objects). */
  get?: (record: any) => unknown;
  /** What a table or record view shows instead of the raw value (`every 24h` for 24); tsv keeps the raw value. */
  show?: (record: any) => unknown;
  /**
   * tsv writes an object value flattened: one field per path given here
   * (`retention` as its hourly, daily, weekly and monthly counts), empty when absent.
   */
  flat?: readonly string[];
  /**
   * How the value is shown in a table:
   * time: relative ("3 hours ago"), size: human bytes from a number or passes a human string,
   * status: coloured word, bool: yes/no, tags: the names set to 1/true, json: compact JSON.
   */
  format?: 'text' | 'time' | 'size' | 'status' | 'bool' | 'tags' | 'json';
  /** Not shown unless named in --columns. */
  extra?: boolean;
  /**
   * On a narrow terminal this column is left out before the others (which go from the right):
   * what people read a table for (a name, a time, a status, a schedule) stays.
   */
  dropEarly?: boolean;
  /** A table shows only the first `short` characters (an id or a hash, as git shortens them); tsv and JSON carry it whole. */
  short?: number;
}

export interface Section {
  title: string;
  rows: unknown[];
  columns: Column[];
}

export type Result =
  /** Records, page by page; rendered as they arrive (ndjson/tsv/table streams per page). */
  | { kind: 'list'; pages: AsyncIterable<unknown[]>; columns: Column[]; idField: string }
  /** One record; table mode shows it as KEY  value lines, then sections. */
  | { kind: 'record'; record: unknown; columns: Column[]; idField: string; sections?: Section[] }
  /** An answer printed whole with --json; table mode shows `text` if given, else key/value lines. */
  | { kind: 'object'; value: unknown; text?: string; idField?: string }
  /** Nothing on stdout; `message` on stderr in table mode; `-q` prints `id`. */
  | { kind: 'done'; message: string; id?: string | number }
  /** Plain text on stdout whatever the format (auth token, completion scripts); `value` for --json if set. */
  | { kind: 'text'; text: string; value?: unknown }
  /** Nothing to print (the handler wrote its own output). */
  | { kind: 'empty' };

export interface RequestSpec {
  method: HttpMethod;
  /** Path relative to /v1 with path parameters filled in, e.g. /ssh-keys/12/rename. */
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** Send without the Authorization header (signed download URLs). */
  noAuth?: boolean;
  /** Sent exactly as written, whatever the profile's provider_names (`backupctl api`). */
  asWritten?: boolean;
}
export type QueryValue = string | number | boolean | undefined | null | Record<string, string | number | boolean>;

export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, or the text when the body is not JSON, or undefined when empty. */
  body: unknown;
  /** The request as shown in errors ("GET /v1/backups/…"), set by the client. */
  display?: string;
}

export interface Page {
  records: unknown[];
  /** The whole answer (data, links, meta). */
  raw: unknown;
}

/** The HTTP client (src/http). One per process. */
export interface Client {
  request(req: RequestSpec, opts?: { signal?: AbortSignal }): Promise<ApiResponse>;
  /**
   * Walks pages as api-facts.md says, keeping filters and page_size on every page.
   * `verbatim`: the caller hands the records to the renderer untouched (never changes one in
   * place), so each keeps the text the service wrote it as, and compact JSON and ndjson print
   * that text (src/output/verbatim.ts).
   */
  pages(req: RequestSpec, opts: { all: boolean; signal?: AbortSignal; verbatim?: boolean }): AsyncIterable<Page>;
  close(): Promise<void>;
  /** The spelling this service takes (set, remembered or probed once): src/cli/dialect.ts. */
  providerNames?(): Promise<'neutral' | 'published'>;
}

/** Resolved settings: flag > env > profile > default. */
export interface Settings {
  profile: string;
  baseUrl: string;
  baseUrlSource: 'flag' | 'env' | 'profile' | 'default';
  token: string | undefined;
  tokenSource: 'env' | 'profile' | undefined;
  output: OutputFormat | undefined;
  timeoutMs: number;
  debug: boolean;
  configFile: string;
  /** Which provider names and droplet/volume path the service is sent (profile `provider_names`, env BACKUPCTL_PROVIDER_NAMES). */
  providerNames: 'neutral' | 'published';
  /**
   * Where providerNames came from: `env`/`profile` (set: sent as set), `detected` (probed earlier and
   * remembered in the profile for this base URL), `default` (not known yet: probed when first needed).
   */
  providerNamesSource?: 'env' | 'profile' | 'detected' | 'default';
  /** A PostgreSQL state the team shares ($BACKUPCTL_STATE_URL, else the profile's `state_url`); unset: the state folder. */
  stateUrl?: string;
  stateUrlSource?: 'env' | 'profile';
}

export interface Spinner {
  update(text: string): void;
  stop(): void;
}

/** What a handler is given (GitHub CLI's factory): everything it needs, injectable in tests. */
export interface Context {
  globals: Globals;
  io: IO;
  env: NodeJS.ProcessEnv;
  output: OutputOptions;
  /** Resolved settings; throws ConfigError (exit 3) on a bad base URL or broken config. */
  settings(): Promise<Settings>;
  /** The HTTP client; throws ConfigError (exit 3) when there is no token. */
  client(): Promise<Client>;
  /** Asks on a TTY; with --yes returns true; without a TTY on stdin throws UsageError (exit 2). */
  confirm(question: string): Promise<boolean>;
  /** Aborted on SIGINT. */
  signal: AbortSignal;
  /** A spinner on stderr, only when stderr is a TTY (otherwise a no-op). */
  spinner(text: string): Spinner;
  /** Warning line on stderr. */
  /** One line on stderr for the user (progress, what was done); service text in it is sanitised and scrubbed. */
  note(message: string): void;
  warn(message: string): void;
  /**
   * Runs another command as the runner does (its checks, name look-ups, handler and marks), with the IO
   * given: `assure run` runs verify and restore-test this way (src/commands/assure.ts). Set by the runner.
   */
  runCommand?(o: { spec: import('./spec.js').ManifestCommand; positionals: (string | undefined)[]; options: Record<string, unknown>; globals: Globals; io: IO; signal: AbortSignal }): Promise<void>;
}

export interface CommandInput {
  spec: CommandSpec;
  /** Validated values keyed by the param's API name (dotted names kept as-is). */
  values: Record<string, unknown>;
  /** The request built from the spec and values, when the spec has an endpoint. */
  request: RequestSpec | undefined;
}

/**
 * A command's own code. `check`, when a handler has one, runs before any name given for an id
 * is looked up (src/commands/runner.ts): input it refuses (exit 2, or 3 for a bad setting) sends
 * nothing, not even the look-up. It sees the values as given (a name not yet an id); what it
 * answers is the handler's third argument.
 */
export type Handler = ((input: CommandInput, ctx: Context, checked?: unknown) => Promise<Result>) & {
  check?: (input: CommandInput, ctx: Context) => Promise<unknown>;
};

/** One profile's run of a command under --all-profiles / --profiles a,b (src/cli/profiles.ts). */
export interface ProfileOutcome {
  profile: string;
  base_url: string | null;
  ok: boolean;
  exit_code: number;
  error: string | null;
  /** The profile's JSON answer (present also when a --check failed after printing it). */
  result: unknown;
}

/**
 * A command's own view of every profile's answer (status, report): the single-profile view
 * with a profile column, for the formats other than --json (which stays `{"profiles": [...]}`).
 * Undefined: the generic merged table of `perProfile.columns`.
 */
export type ProfileView = (
  outcomes: readonly ProfileOutcome[],
  /** `format`: a format of the command's own (report's md, html), given with -o; `output` then holds the default. */
  o: { output: OutputOptions; io: IO; env: NodeJS.ProcessEnv; format?: string },
) => Promise<Result | undefined>;

/** What a module of the registry (src/commands/registry.ts) exports. */
export interface LoadedModule {
  /** Per handler name: its view of several profiles' answers (see ProfileView). */
  profileViews?: Record<string, ProfileView>;
  module: ModuleSpec;
  handlers?: Record<string, Handler>;
  /** zod schemas of records, by name (lenient: unknown fields kept). */
  schemas?: Record<string, unknown>;
  columns?: Record<string, Column[]>;
  /**
   * Validation hooks by name (CommandSpec.validator): run before anything is
   * sent or printed, --dry-run included; they throw a UsageError to refuse.
   */
  checks?: Record<string, (input: CommandInput) => void>;
}
