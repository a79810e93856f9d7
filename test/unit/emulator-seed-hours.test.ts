// The demo seed must tell the same story at any hour it starts: the status
// tests and the README demo rely on one failing job, one stale one, and
// healthy others, with the same ids and the same five newest statuses
// (the stale job has five or six runs in its window, depending on the hour).
import { describe, expect, it } from 'vitest';
import { Store } from '../../src/emulator/store.js';
import { seedStore } from '../../src/emulator/seed.js';

function story(now: number) {
  const store = new Store();
  seedStore(store, { seed: 'demo', now, bigJob: 0 });
  return store.jobs.rows.map((j) => {
    const backups = [...store.backupsOfJob(j.id)].sort((a, b) => b.created_at - a.created_at);
    return { id: j.id, name: j.name, newest: backups[0]?.status, recent: backups.slice(0, 5).map((b) => b.status) };
  });
}

describe('demo seed', () => {
  it('has no backup that completed after the emulator started, whatever the time of day', () => {
    const base = Date.parse('2026-11-22T00:00:00Z');
    for (let m = 0; m < 24 * 60; m += 5) {
      const now = base + m * 60_000;
      const store = new Store();
      seedStore(store, { seed: 'demo', now, bigJob: 0 });
      for (const j of store.jobs.rows) {
        for (const b of store.backupsOfJob(j.id)) {
          if (b.completed_at !== null && b.completed_at !== undefined) expect(b.completed_at as number).toBeLessThanOrEqual(now);
        }
      }
    }
  });

  it('is the same jobs, ids and recent statuses at every hour of a day', () => {
    const base = Date.parse('2026-11-22T00:00:00Z');
    const first = story(base + 30 * 60_000);
    for (let h = 1; h < 24; h++) {
      expect(story(base + h * 3_600_000 + 30 * 60_000).map((j) => ({ id: j.id, name: j.name, newest: j.newest, recent: j.recent }))).toEqual(
        first.map((j) => ({ id: j.id, name: j.name, newest: j.newest, recent: j.recent })),
      );
    }
  });
});
