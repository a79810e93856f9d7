// The JSON Schema of `retention --json` (backupctl schema retention), from zod.
import * as z from 'zod/mini';

const counts = z.object({ hourly: z.int(), daily: z.int(), weekly: z.int(), monthly: z.int() });
const at = z.nullable(z.string());

const row = z.object({
  id: z.string(),
  created_at: z.string(),
  status: z.string(),
  tags: z.array(z.string()),
  action: z.enum(['keep', 'expire', 'not-counted']),
  rules: z.array(z.string()).check(z.describe('The rules that keep it now: "daily #3", "weekly #1"')),
  reason: z.string(),
  expires_at: at.check(z.describe('The run predicted to push it out; null when not counted or beyond the forecast')),
  expires_run: z.nullable(z.int()).check(z.describe('That run among the future runs: 1 is the next run')),
  proven: z.nullable(z.object({ by: z.enum(['verify', 'restore-test']), at })),
});

export const forecastDocumentSchema = z.object({
  generated_at: z.string(),
  target: z.object({ kind: z.enum(['job', 'droplet', 'volume', 'resource']), id: z.string(), name: z.nullable(z.string()) }),
  inputs: z.object({
    counts,
    counts_from: z.enum(['service', 'what-if']),
    service_counts: counts,
    schedules: z.array(z.object({ cron: z.string(), timezone: z.string(), text: z.string() })),
    unreadable_schedules: z.array(z.string()),
    tags_used: z.array(z.string()),
    runs_forecast: z.int(),
    horizon_until: z.string(),
    assumptions: z.array(z.string()).check(z.describe('The named assumptions of docs/retention.md the forecast rests on')),
  }),
  backups: z.array(row),
  keep: z.array(z.string()),
  expire: z.array(z.string()).check(z.describe('What goes at the next run (restic\'s remove)')),
  not_counted: z.array(z.string()),
  reasons: z.array(z.object({ id: z.string(), matches: z.array(z.string()) })),
  next_run: z.nullable(z.object({ at: z.string(), tags: z.array(z.string()), expiring: z.array(z.string()) })),
  expires_next: z.nullable(z.object({ id: z.string(), at: z.string() })),
  simulation: z.optional(
    z.object({
      until: z.string(),
      days: z.array(z.object({ date: z.string(), runs: z.array(z.object({ at: z.string(), tags: z.array(z.string()), made: z.string(), expiring: z.array(z.string()) })) })),
      remaining: z.array(z.string()),
    }),
  ),
  guard: z.optional(
    z.object({
      proven: z.nullable(z.object({ id: z.string(), by: z.enum(['verify', 'restore-test']), at, expires_at: at, expires_run: z.nullable(z.int()) })),
      newest_unproven: z.nullable(z.object({ id: z.string(), created_at: z.string() })),
      clean: z.nullable(
        z.object({ id: z.string(), created_at: z.string(), before: z.string(), expires_at: at, expires_run: z.nullable(z.int()), fails: z.boolean() }),
      ).check(z.describe('The last clean backup before the job\'s anomalous ones (backupctl anomalies, from the catalog) and when it is predicted to go; null when the catalog flags none of the job\'s backups')),
      within_seconds: z.int(),
      fails: z.boolean(),
      message: z.string(),
    }),
  ),
});

export const retentionOutputSchema = z.array(forecastDocumentSchema);
