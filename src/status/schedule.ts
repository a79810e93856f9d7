// Moved to src/fleet/schedule.ts (issue 25 §17): status and report share the cron tools.
export * from '../fleet/schedule.js';
