// Issue 42.13: names work everywhere, retention's --droplet and --volume too (a name was sent as the id: 404).
import { describe, expect, it } from 'vitest';
import { withEmulatorCli } from '../helpers/emulator.js';

const { cli, sent } = withEmulatorCli();

describe('retention --droplet / --volume by name', () => {
  it('--droplet web-01 forecasts the droplet of that name, as its id does', async () => {
    const byId = await cli(['retention', '--droplet', '301234567', '--json']);
    expect(byId.code, byId.stderr).toBe(0);
    const byName = await cli(['retention', '--droplet', 'web-01', '--json']);
    expect(byName.code, byName.stderr).toBe(0);
    // The same forecast but for the instants it was made at.
    const strip = (out: string) => JSON.parse(out, (k, v) => (k === 'generated_at' || k === 'horizon_until' ? undefined : v)) as unknown;
    expect(strip(byName.stdout)).toEqual(strip(byId.stdout));
    expect(sent().some((r) => r.method === 'GET' && /\/droplets\/301234567$/.test(r.path))).toBe(true);
    expect(sent().some((r) => r.path.endsWith('/droplets/web-01'))).toBe(false);
  });

  it('--volume uploads-fra1 forecasts that volume; an unknown name is refused, naming it', async () => {
    const r = await cli(['retention', '--volume', 'uploads-fra1', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('977432dc-99f3-49b7-96ac-ff74bd6f860b');
    const bad = await cli(['retention', '--droplet', 'nosuch']);
    expect(bad.stderr).toContain('no droplet with the id or name "nosuch"');
    expect(bad.code).not.toBe(0);
  });
});
