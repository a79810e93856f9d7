// What `status` and `report` share: they read the same fleet (jobs and their
// backups, droplets, volumes and snapshot resources with their snapshots),
// declare the same endpoints and start --dry-run with the same lists.
import type { Context, Result } from '../contract/context.js';

/** The endpoints both commands call (for the coverage check and the docs). */
export const FLEET_CALLS = [
  'GET /jobs',
  'GET /jobs/{job_id}/backups',
  'GET /cloud_i/droplets',
  'GET /cloud_i/droplets/{droplet_id}/snapshots',
  'GET /cloud_i/volumes',
  'GET /cloud_i/volumes/{volume_id}/snapshots',
  'GET /snapshots/resources',
  'GET /snapshots',
] as const;

/** --dry-run: the lists the command starts with, then in words (`then`) what depends on their answers. */
export async function fleetDryRun(ctx: Context, sections: boolean, then: string): Promise<Result> {
  const { printDryRun } = await import('../cli/dry-run.js');
  const first = [{ method: 'GET' as const, path: '/jobs', query: { page_size: 100 } }];
  if (sections) {
    first.push(
      { method: 'GET', path: '/cloud_i/droplets', query: { page_size: 100 } },
      { method: 'GET', path: '/cloud_i/volumes', query: { page_size: 100 } },
      { method: 'GET', path: '/snapshots/resources', query: { page_size: 100 } },
    );
  }
  await printDryRun(ctx, ...first);
  ctx.io.stderr.write(`${then}\n`);
  return { kind: 'empty' };
}

/** Rows already in hand as the one page of a list result (tsv, -q). */
export async function* onePage(rows: unknown[]): AsyncIterable<unknown[]> {
  yield rows;
}
