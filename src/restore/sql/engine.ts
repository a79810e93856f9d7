// The interface the two SQL engines of restore-test implement (issue 28 §10;
// registry.ts lists them with the other engines), and the one place that
// chooses where a dump is restored and says why nowhere fits. A SQL engine
// (postgres.ts, mysql.ts) says which kinds of dump it restores, why a placement
// (server: the user's --into, local: an ephemeral server from the machine's
// binaries, embedded: PGlite) cannot restore one here, and opens a scratch
// target for the dump: confined as that engine confines it (see
// docs/security.md). Loading, counting, asserting and cleaning up are the
// SqlTarget's (target.ts). Nothing here reads process.env: the environment is
// the command's, handed down in EngineOptions.
import { CliError, ExitCode } from '../../errors.js';
import type { Placement, PlacementChoice } from '../types.js';
import type { ContentKind, SqlDialect } from '../../pipeline/kinds.js';
import type { PipedClient } from './client.js';
import type { SqlTarget } from './target.js';
import { describeRaw, parseIntoUrl, type ParsedUrl } from '../servers/url.js';
import { DIALECTS } from './dialects.js';

/** What an engine is told when it plans and opens: the command's options and environment. */
export interface EngineOptions {
  engine: PlacementChoice;
  /** --into (or BACKUPCTL_RESTORE_URL, resolved by the command). */
  into?: string;
  /** --run-as: the account an ephemeral server runs as when backupctl is root. */
  runAs?: string;
  /** --trust-into-user: restore as the --into user even when its rights reach beyond what it creates. */
  trustIntoUser?: boolean;
  /** The command's environment (PATH to find binaries, the bounds). Never process.env. */
  env: NodeJS.ProcessEnv;
}

/** What open() gets besides the options. */
export interface OpenContext {
  signal: AbortSignal;
  /** A warning for the result (key: one line per kind of warning). */
  warn: (key: string, text: string) => void;
  /** The first decoded bytes of the dump (what it needs before it runs: extensions). */
  head: string;
}

/** The engine chosen for one dump. */
export interface EnginePlan {
  engine: SqlEngine;
  placement: Placement;
  kind: ContentKind;
  /** Why the modes before this one were passed over (warnings). */
  notes: string[];
  /** --into, parsed, when the placement is server. */
  into?: ParsedUrl;
}

export interface SqlEngine {
  /** The dialect of the dumps it restores: what differs between dialects is DIALECTS[dialect] (dialects.ts), not the engine's to branch on. */
  readonly dialect: SqlDialect;
  /** "PostgreSQL", "MySQL/MariaDB": for messages. */
  readonly product: string;
  /** The kinds of dump it restores. */
  readonly kinds: readonly ContentKind[];
  /** The URL schemes of --into it takes (postgres, mysql). */
  readonly intoDialect: SqlDialect;
  /** Why the placement `mode` cannot restore `kind` on this machine, or null when it can. Starts nothing, connects nowhere. */
  unavailable(mode: Placement, kind: ContentKind, o: EngineOptions): Promise<string | null>;
  /** The ways to get an engine when none fits (NoRestoreEngineError's hints). */
  hints(): string[];
  /**
   * A scratch target for the dump, confined (docs/security.md): the dump's
   * session reaches nothing but the scratch database. The target owns what
   * it started (server, login, database): its close() and abort() remove them.
   */
  open(plan: EnginePlan, o: EngineOptions, x: OpenContext): Promise<SqlTarget>;
  /** A program turning a kind that is not SQL text (pg-custom) into SQL on its stdout, else null. */
  converter(kind: ContentKind, o: EngineOptions): PipedClient | null;
  /**
   * Starts the read-only questions open() asks --into first (the client's version, who the user is
   * and what the server has), so they are answered while the job and its backup are looked up.
   * Creates nothing and changes nothing on the server; open() takes the answers (or asks again).
   */
  prewarm?(into: ParsedUrl, o: EngineOptions, signal: AbortSignal): void;
}

/**
 * --into's engine starts its read-only questions now (SqlEngine.prewarm): restore-test calls this
 * before it looks up the job, as the dump's kind is not known yet; the engine of --into's scheme is
 * the one that restores a dump of that dialect. Nothing when --into is not used or cannot be read.
 */
export function prewarmInto(engines: readonly SqlEngine[], o: EngineOptions, signal: AbortSignal): void {
  if (!o.into || (o.engine !== 'auto' && o.engine !== 'server')) return;
  let u: ParsedUrl;
  try {
    u = parseIntoUrl(o.into);
  } catch {
    return;
  }
  engines.find((e) => e.intoDialect === u.dialect)?.prewarm?.(u, o, signal);
}

/**
 * No engine can restore this dump (exit 15). The first line leads with the causes (the mysql2 driver
 * missing, no binaries, PGlite not installed), then the ways to get an engine: an installed backupctl
 * missing its optional driver said "install mariadb-server" first and the real cause last.
 */
export class NoRestoreEngineError extends CliError {
  constructor(engine: SqlEngine, tried: string[] = []) {
    // Each cause once (the driver missing stops --into and the local server alike), --into's other dialect left out.
    const causes = [...new Set(tried.filter((t) => !t.startsWith('--into ') || !t.includes(' is not a ')).map((t) => t.replace(/^--into: /, '')))];
    super(`no engine to restore a ${engine.product} dump${causes.length ? `: ${causes.join('; ')}` : ''}`, ExitCode.noRestoreEngine, [...engine.hints(), ...tried.map((t) => `(${t})`)]);
  }
}

export function engineFor(engines: readonly SqlEngine[], kind: ContentKind): SqlEngine | null {
  return engines.find((e) => e.kinds.includes(kind)) ?? null;
}

/**
 * Which engine and mode restore a dump of this kind, without starting
 * anything: --into first (auto) or only (server), then local binaries, then
 * embedded. Throws NoRestoreEngineError (exit 15) when none can, a usage
 * error (exit 2) for an --into that cannot be read or does not fit.
 */
export async function planEngine(engines: readonly SqlEngine[], kind: ContentKind, o: EngineOptions): Promise<EnginePlan> {
  const engine = engineFor(engines, kind);
  if (!engine) throw new CliError(`not a SQL dump (${kind})`, ExitCode.usage);
  const notes: string[] = [];
  const choice = o.engine;
  if (choice === 'server' || (choice === 'auto' && o.into)) {
    if (!o.into) throw new CliError('--engine server needs --into URL (or BACKUPCTL_RESTORE_URL)', ExitCode.usage);
    let u: ParsedUrl;
    try {
      u = parseIntoUrl(o.into);
    } catch (e) {
      throw new CliError((e as Error).message, ExitCode.usage);
    }
    if (u.dialect === engine.intoDialect) {
      const why = await engine.unavailable('server', kind, o);
      if (!why) return { engine, placement: 'server', kind, notes, into: u };
      if (choice === 'server') throw new NoRestoreEngineError(engine, [why]);
      notes.push(`--into: ${why}`);
    } else {
      if (choice === 'server') throw new CliError(`--into is a ${DIALECTS[u.dialect].words} server, and this dump is ${engine.product}`, ExitCode.usage);
      notes.push(`--into ${describeRaw(o.into)} is not a ${DIALECTS[engine.intoDialect].words} server: not used for this dump`);
    }
  }
  for (const mode of ['local', 'embedded'] as const) {
    if (choice !== 'auto' && choice !== mode) continue;
    const why = await engine.unavailable(mode, kind, o);
    if (!why) return { engine, placement: mode, kind, notes };
    if (choice === mode) throw new NoRestoreEngineError(engine, [...notes, why]);
    notes.push(why);
  }
  throw new NoRestoreEngineError(engine, notes);
}
