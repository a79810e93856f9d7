// The declarative description of a command. Everything here is plain data so
// that the build can serialise every command into dist/manifest.json: `--help`
// and argument parsing then run without loading zod, undici or any resource's
// schemas. Functions (custom handlers, column getters) live in the resource
// module itself and are loaded only when the command runs.

/**
 * Resources whose records have names a user may type instead of the id (src/cli/resolve.ts
 * says how each is looked up). Here, with the other plain types, so that this file
 * imports nothing back (issue 25 §18: resolve -> contract -> resolve would be a circle).
 */
export type NamedKind = 'jobs' | 'servers' | 'ssh-keys' | 'storage' | 'accounts' | 'droplets' | 'volumes' | 'encryption-keys';

/**
 * What shell completion reads values from (`backupctl __complete ids <source>`): the
 * named resources, and snapshots (of a droplet or volume too), snapshot resources, restores and backups from the service; the
 * profiles of the config file and the commands `schema` takes from this machine.
 */
export type CompletionSource =
  | NamedKind
  | 'snapshots'
  | 'droplets-snapshots'
  | 'volumes-snapshots'
  | 'resources'
  | 'restores'
  | 'backups'
  | 'profiles'
  | 'commands';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * How a flag's text is checked and turned into a value.
 * - string, integer, number, boolean: the obvious; boolean flags take no value.
 * - enum: one of `values`.
 * - datetime: ISO 8601 or a relative age (`24h`, `7d`, `2w`, `90m`); sent as ISO 8601 UTC.
 * - duration: `30s`, `5m`, `2h`, or milliseconds; handed to the handler in ms.
 * - uuid: a UUID-shaped string.
 * - tags: `manual,daily`; with `tagValue` it becomes {manual: 1, daily: 1} (or 0).
 * - kv: repeatable `key=value`, collected into an object.
 * - storage: repeatable `id[:priority]`, collected into [{storage_id, priority}].
 * - json-file: a path or `-`; the JSON object read from it is the value.
 * - text-file: a path or `-`; the text read from it is the value.
 * - cron: a 5-field cron expression that croner reads and that runs at some date.
 * - timezone: an IANA time zone (`Europe/Paris`), sent as the time zone database spells it.
 * - url: an http:// or https:// URL.
 */
export type ParamType =
  | 'string'
  | 'integer'
  | 'number'
  | 'boolean'
  | 'enum'
  | 'datetime'
  | 'duration'
  | 'uuid'
  | 'tags'
  | 'kv'
  | 'storage'
  | 'json-file'
  | 'text-file'
  /** `--sort name` or `--sort -name`, one of `values` */
  | 'sort'
  | 'cron'
  | 'timezone'
  /** An http:// or https:// URL. */
  | 'url';

/** Where a parameter goes in the request. `local` is consumed by a custom handler only. */
export type ParamLocation = 'path' | 'query' | 'body' | 'local';

export interface ParamSpec {
  /**
   * The API name. Dotted names nest in the body (`credentials.key`,
   * `retention.daily`); `.` means "the whole body" (a `--file` whose fields
   * other flags override). A `#suffix` lets two flags feed one API field:
   * `tags` and `tags#without` both fill `tags[...]`.
   */
  name: string;
  /** Flag (without dashes) or, for positionals, the argument's name. Default: kebab-case of name. */
  flag?: string;
  /** One-letter alias, e.g. 'n'. */
  short?: string;
  in: ParamLocation;
  type: ParamType;
  /**
   * For `string`: a regular expression the whole value must match, and what it means for the
   * error (`h<hours> or m<minutes>`), where the service's values are open-ended.
   */
  pattern?: { source: string; text: string };
  /** Allowed values for `enum`. */
  values?: readonly string[];
  /**
   * For `enum`: other spellings accepted for a value (`{aws: 'cloud_a'}`), and the value
   * itself, case-insensitively; the value (token) is what the request holds (issue 30 §1).
   */
  aliases?: Readonly<Record<string, string>>;
  required?: boolean;
  /** Required only when another parameter has one of these values, e.g. {provider: ['custom']}. */
  requiredWhen?: Record<string, readonly string[]>;
  /** A positional argument (`<id>`), in the order of the params array. */
  positional?: boolean;
  /** Repeatable flag: values collected in an array (kv and storage always are). */
  repeatable?: boolean;
  /** JSON type on the wire when it differs from the flag type (ssh_port is sent as a string). */
  wire?: 'string' | 'integer';
  /** `--no-<flag>` sends null (droplets' --no-secondary-region). */
  nullable?: boolean;
  /** For `tags`: the value each listed tag gets (1 for --tags, 0 for --without-tags). */
  tagValue?: 0 | 1;
  /** Given without this other parameter (its name), exit 2: `--wait-timeout` needs `--wait`. */
  needs?: string;
  /** Inclusive bounds for integer and number values; for a duration, in milliseconds. */
  min?: number;
  max?: number;
  default?: string | number | boolean;
  /** A second line under an error about this parameter's value (what to do instead). */
  hint?: string;
  /** Given while another parameter has one of these values, exit 2: `--key` with `--provider cloud_m`. */
  refusedWhen?: Record<string, readonly string[]>;
  /**
   * A flag transform: the text loses its surrounding whitespace (a file's final
   * newline) before it is checked and sent; `line` then ends it with one newline (a PEM file).
   */
  trim?: boolean | 'line';
  /** Placeholder shown in help, e.g. `<key-id>`. */
  placeholder?: string;
  description: string;
  /** Not shown in help (deprecated aliases). */
  hidden?: boolean;
  /**
   * The id of a resource that has names: a value not shaped like its id is a
   * name, looked up before the request is built (src/cli/resolve.ts).
   */
  names?: NamedKind;
  /**
   * What shell completion offers for the value when `names` does not say: the
   * ids (with a description) of records the service lists, the profiles, or
   * the commands (src/commands/completion.ts).
   */
  complete?: CompletionSource;
  /** For `uuid`: words taken as they are besides an id (`latest`), lower-cased; the handler says what they mean. */
  keywords?: readonly string[];
}

/** Checks of a command's input as data (see CommandSpec.checks). */
export interface InputChecks {
  /**
   * An update must change something: a request body without any of `fields`
   * (default: any field) exits 2 with "nothing to update for <what>", which
   * takes {param} placeholders, naming `flags` (default: every body flag).
   */
  nothingToUpdate?: { what: string; fields?: readonly string[]; flags?: readonly string[] };
  /** At least one of these parameters (names) must be given: exit 2 with `message` otherwise. */
  atLeastOne?: { params: readonly string[]; message: string; hint?: string };
  /** At most one of these parameters (names) may be given. */
  atMostOne?: readonly string[];
  /** Exactly one of these parameters (names) must be given. */
  exactlyOne?: readonly string[];
  /**
   * "One id or --all": exactly one of the positional `param` and --all (the
   * `noun`s of `owner`, a template). `one` and `all` override the spec's
   * endpoint, confirm and done for each form.
   */
  orAll?: { param: string; noun: string; owner: string; one?: CommandVariant; all?: CommandVariant };
}

/** What one form of a command changes of its spec. */
export interface CommandVariant {
  endpoint?: string;
  confirm?: string;
  done?: string;
}

export type OutputKind =
  /** an array of records (`data`), paginated */
  | 'list'
  /** one record (`data`) */
  | 'record'
  /** an answer without `data`, printed whole (start backup, servers code) */
  | 'object'
  /** 204: nothing on stdout; a confirmation line on stderr; `-q` prints the id acted on */
  | 'none';

export interface OutputSpec {
  kind: OutputKind;
  /** Key of the record's zod schema in the module's `schemas` export (lenient parsing). */
  schema?: string;
  /** Key of the answer's schema where the service's answer differs from what --json prints (docs/openapi.json). */
  wireSchema?: string;
  /** Key of the column set in the module's `columns` export. */
  columns?: string;
  /** For kind `none`: the confirmation, with {param} placeholders, e.g. 'Deleted SSH key {key_id}'. */
  done?: string;
  /** Field holding the record's id, for `-q` (default `id`). */
  idField?: string;
  /** For kind `record`: list fields of the record shown as tables below it (`files`), each with a column set of the module. */
  /** Sub-tables under the record; `newestFirst` orders a list of records by their created_at, newest first (in --json too). */
  sections?: ReadonlyArray<{ title: string; field: string; columns: string; newestFirst?: boolean }>;
  /**
   * For kind `record`: a column shows this parameter's value where the answer
   * leaves the field empty (the answer to a creation carries no provider: the
   * one sent is shown).
   */
  fallbacks?: Readonly<Record<string, string>>;
  /**
   * For kind `object`: in a table (not -q), a field of the answer to print on
   * stderr as the confirmation, instead of the whole answer; `done` when it is absent.
   */
  messageField?: string;
  /**
   * For kind `object`: this field of the answer alone, as text on stdout whatever the
   * format (a shell line to pipe: `servers code`); --json prints the whole answer.
   */
  textField?: string;
  /**
   * For kind `record`: the record is a map (`{file name: url}`), shown as rows of
   * `key` and `value` (one `key<TAB>value` line each in a table, so that nothing
   * is cut to the terminal's width); --json prints the map as it came.
   */
  entries?: { key: string; value: string };
}

export interface ListSpec {
  /** Fields the endpoint sorts by; `--sort -name` for descending. */
  sort?: readonly string[];
  /** The --sort sent when none is given (`-created_at`: newest first). */
  defaultSort?: string;
  /** False where the endpoint takes no page_size (default true). */
  pageSize?: boolean;
  /**
   * A configuration resource (servers, keys, storage, jobs, accounts, droplets, volumes,
   * resources): the whole list is read by default, as doctl and hcloud do; `--page` asks for one
   * page (issue 29: lists are never silently partial).
   */
  whole?: boolean;
}

export interface CommandSpec {
  /** Command words, e.g. ['jobs', 'backup', 'start']. */
  path: readonly string[];
  /** One line for lists of commands. */
  summary: string;
  /** Longer help text, optional. */
  description?: string;
  /** At least one example command line, shown in --help. */
  examples: readonly string[];
  /** The endpoint, when the command sends one request. Path relative to /v1, e.g. '/ssh-keys/{key_id}/rename'. */
  method?: HttpMethod;
  endpoint?: string;
  params: readonly ParamSpec[];
  list?: ListSpec;
  output: OutputSpec;
  /** Destructive: ask this question on a TTY (placeholders as in `done`); `--yes` skips it. */
  confirm?: string;
  /** Name of a custom handler in the module's `handlers` export; default: the generic endpoint runner. */
  handler?: string;
  /**
   * Extra endpoints a custom handler calls (for the coverage check and docs), as 'METHOD /path'.
   * One that no command declares as its endpoint must answer as this command's own does
   * (docs/openapi.json describes it with this command's path parameters and output).
   */
  alsoCalls?: readonly string[];
  /**
   * The success status, where the interface's differs from the rule (docs/openapi.json):
   * 204 for output kind `none`, 201 for a POST that answers a record, 200 otherwise.
   */
  successStatus?: 200 | 201 | 202 | 204;
  /**
   * What the request body carries beyond its body flags, for docs/openapi.json: `fields` a
   * handler builds from local flags (JSON Schemas, e.g. `compute`), and fields the interface
   * `required`s that no flag marks required (a default fills them, or the handler checks).
   */
  body?: { fields?: Readonly<Record<string, Readonly<Record<string, unknown>>>>; required?: readonly string[] };
  /**
   * The custom handler prints --dry-run itself: it picks the endpoint from the
   * input (`snapshot delete <id> --all`) or refuses input the flags alone cannot
   * (`activate` without any retention count), so the runner must not print `request`.
   */
  dryRunInHandler?: boolean;
  /**
   * Checks of the input that the parameters alone cannot say, run by the
   * runner before anything is sent or printed: --dry-run refuses what the real
   * run refuses (src/cli/checks.ts).
   */
  checks?: InputChecks;
  /**
   * The validation hook: a function of the module's `checks` export, given the
   * values and the request, run after `checks` and before --dry-run; it throws a
   * UsageError to refuse the input. For the rules that data cannot describe.
   */
  validator?: string;
  /** Other names for the command's last word. */
  aliases?: readonly string[];
  /** Commands that never talk to the service (auth status, config ...): no --dry-run. */
  local?: boolean;
  /** Hidden from help (aliases kept for compatibility). */
  hidden?: boolean;
  /** Runs until Ctrl-C, which is its normal end: exit 0 rather than 130 (the emulator). */
  runsUntilInterrupted?: boolean;
  /** Output formats beyond table/json/ndjson/tsv that this command's handler renders itself (status: prometheus). */
  extraFormats?: readonly string[];
  /**
   * Runs once per profile with --all-profiles / --profiles a,b (src/cli/profiles.ts): the rows of
   * each profile's JSON answer (`rows`: a dotted path to an array, '' for the answer itself, or one
   * object) and the dotted keys shown in the merged table after the PROFILE column.
   */
  perProfile?: {
    rows: string;
    columns: readonly string[];
    /** Formats of the command's own (extraFormats) that its merged view renders (report: md, html); the others are refused before any run. */
    formats?: readonly string[];
  };
}

/** What every resource or command module exports. */
export interface ModuleSpec {
  /** Module key in the registry, e.g. 'servers'. */
  name: string;
  commands: readonly CommandSpec[];
}

/** The serialised form written to dist/manifest.json. */
export interface ManifestCommand extends CommandSpec {
  module: string;
  /** The keys `--columns` takes (of output.columns), for completion and help. */
  columnKeys?: string[];
}

export interface Manifest {
  version: string;
  groups: Record<string, string>;
  commands: ManifestCommand[];
}

/**
 * What the program is built from: the groups and top-level words, and each
 * word's commands on demand. Start-up reads dist/startup/ (an index plus one
 * file per group, so a command reads its group's specs alone); the build,
 * completion and tests hand over the whole manifest.
 */
export interface CommandSource {
  version: string;
  groups: Record<string, string>;
  /** Top-level words in manifest order. */
  tops: string[];
  /** Whether `top` is a command itself (status, api, ...), declared at start-up because the top-level help shows its arguments. */
  isEager(top: string): boolean;
  /** The commands whose path starts with `top`. */
  commandsOf(top: string): ManifestCommand[];
  /**
   * For a word that is a command itself: how the top-level help lists it
   * (`api [options] <method> <path>`), when known. The program then lists the
   * word with that term and declares its options only when it is used.
   */
  termOf?(top: string): string | undefined;
  /** For a word that is a command itself: what the top-level help lists of it, without reading its commands (start-up). */
  wordOf?(top: string): StartupWord | undefined;
}

/** What the top-level help lists of a word that is a command itself. */
export type StartupWord = Pick<ManifestCommand, 'summary' | 'hidden' | 'aliases'>;

/** dist/startup/index.json: the manifest without the commands (each word's are in dist/startup/<word>.json). */
export interface StartupIndex {
  version: string;
  groups: Record<string, string>;
  tops: string[];
  /** The words that are themselves commands (status, api, ...): what the top-level help lists of each. */
  words: Record<string, StartupWord>;
  /** How the top-level help lists each of those words (see CommandSource.termOf). */
  terms: Record<string, string>;
}
