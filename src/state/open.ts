// Which backend keeps the state (docs/assurance.md, "State backends"): the state folder by default
// ($XDG_STATE_HOME/backupctl, else ~/.local/state/backupctl), or the PostgreSQL state the team shares when
// BACKUPCTL_STATE_URL or the profile's state_url names one. Every command opens what it reads and records
// through here (the marks through src/fleet/marks.ts openMarks): a state database that cannot be reached is
// exit 3, never a fall-back to the folder.
import type { Context } from '../contract/context.js';
import type { CatalogState } from './catalog.js';
import type { LedgerState } from './verify-ledger.js';
import type { TimingsState } from './schedule-timing.js';

type Ctx = Pick<Context, 'settings' | 'env'>;

/** Where the context's state is: the folder (always known: run locks and the like stay there) and the state URL when one is set. */
export async function stateOf(ctx: Ctx): Promise<{ dir: string; url?: string; timeoutMs: number; service: string }> {
  const [{ stateDir }, { serviceKey }, settings] = await Promise.all([import('../config/paths.js'), import('./marks.js'), ctx.settings()]);
  return { dir: stateDir(ctx.env), url: settings.stateUrl, timeoutMs: settings.timeoutMs, service: serviceKey(settings.baseUrl, settings.token) };
}

/** The catalog (fingerprints, listings, acknowledged anomalies) of the context's service. */
export async function openCatalog(ctx: Ctx): Promise<CatalogState> {
  const s = await stateOf(ctx);
  if (s.url) {
    const { PgCatalog } = await import('./pg-catalog.js');
    const catalog = new PgCatalog(s.url, s.service, s.timeoutMs);
    // Reached now, not in the middle of a read: an unreachable state is exit 3 before anything is downloaded.
    await catalog.acks();
    return catalog;
  }
  const [{ Catalog }, settings] = await Promise.all([import('./catalog.js'), ctx.settings()]);
  return Catalog.open(s.dir, settings.baseUrl, settings.token);
}

/** verify's ledger of the context's service (in a database, of the given backups only when named). */
export async function openLedger(ctx: Ctx, backupIds?: readonly string[]): Promise<LedgerState> {
  const s = await stateOf(ctx);
  if (s.url) {
    const { PgLedger } = await import('./pg-ledger.js');
    return PgLedger.open(s.url, s.service, s.timeoutMs, backupIds);
  }
  const { Ledger } = await import('./verify-ledger.js');
  return Ledger.open(s.dir, s.service);
}

/** The memory of each job's schedule timing of the context's service. */
export async function openTimings(ctx: Ctx): Promise<TimingsState> {
  const s = await stateOf(ctx);
  if (s.url) {
    const { PgTimings } = await import('./pg-timings.js');
    return PgTimings.open(s.url, s.service, s.timeoutMs);
  }
  const { ScheduleTimings } = await import('./schedule-timing.js');
  return ScheduleTimings.open(s.dir, s.service);
}
