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
