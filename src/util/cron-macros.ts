// The cron macros croner and most crons take, and the 5 fields the service
// takes for them: one table for every --cron flag (src/cli/values.ts) and for
// backups files (src/ascode), so `@daily` means the same everywhere (issue 29).

/** The cron macros, as the 5 fields the service takes. */
export const CRON_MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** A schedule's cron as the service takes it: a macro becomes its 5 fields. */
export const cronFields = (expr: string): string => CRON_MACROS[expr.trim().toLowerCase()] ?? expr;
