// The service's dialect with the default settings (issue 42 §3): probed once when a request
// depends on it, remembered per profile for its base URL (atomically; a failed write leaves the
// config as it was), probed again when a remembered dialect meets a 404; `provider_names` only
// overrides. And a section status could not read fails `status --check` on its own (never silently).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { emulatorSession, apiRequests } from '../helpers/emulator.js';

const NOW = Date.parse('2026-02-28T23:30:00Z');
type Profile = Record<string, unknown>;

function writeProfile(dir: string, profile: Profile): void {
  writeFileSync(path.join(dir, 'config.json'), `${JSON.stringify({ current_profile: 'default', profiles: { default: profile } }, null, 2)}\n`, { mode: 0o600 });
}
const readConfig = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8')) as { profiles: { default: Profile } };
/** The profile alone: no base URL or token from the environment. */
const PROFILE_ONLY = { BACKUPCTL_BASE_URL: undefined, BACKUPCTL_TOKEN: undefined };

describe('against the published dialect, with the default settings', () => {
  const s = emulatorSession({ dialect: 'published', now: NOW, foldersPerTest: true });
  const sent = () => apiRequests(s.emu).filter((r) => String(r.headers['user-agent']).startsWith('backupctl/'));

  it('droplets list is probed once, remembered in the profile, and sent right the next time', async () => {
    writeProfile(s.cfg.dir, { base_url: s.emu.url, token: s.emu.token });
    const first = await s.cli(['droplets', 'list', '-q'], PROFILE_ONLY);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('301250405');
    expect(first.stderr).not.toContain('warning');
    expect(readConfig(s.cfg.dir).profiles.default.detected_provider_names).toEqual({ base_url: s.emu.url, provider_names: 'published' });
    s.emu.clearRequests();
    const second = await s.cli(['droplets', 'list', '-q'], PROFILE_ONLY);
    expect(second.code, second.stderr).toBe(0);
    expect(sent().map((r) => r.path)).toEqual(['/v1/digitalocean/droplets']);
  });

  it('accounts update --provider sends the name the service takes: aws here (issue 45)', async () => {
    for (const given of ['aws', 'cloud_a']) {
      // provider_names published: aws at once, one request.
      s.emu.clearRequests();
      const set = await s.cli(['accounts', 'update', '4', '--provider', given], { BACKUPCTL_PROVIDER_NAMES: 'published' });
      expect(set.code, set.stderr).toBe(0);
      expect(sent().map((q) => [q.method, q.path, (q.body as { provider?: string } | undefined)?.provider])).toEqual([['PATCH', '/v1/snapshots/accounts/4', 'aws']]);
      // No provider_names: the service's answer finds the spelling, and the update it takes says aws.
      s.emu.clearRequests();
      const found = await s.cli(['accounts', 'update', '4', '--provider', given]);
      expect(found.code, found.stderr).toBe(0);
      const accepted = sent().filter((q) => q.method === 'PATCH' && (q.status ?? 0) < 300);
      expect(accepted.map((q) => (q.body as { provider: string }).provider)).toEqual(['aws']);
    }
  });

  it('a config that cannot be written (locked by a live process) is left byte for byte; the command still works', async () => {
    writeProfile(s.cfg.dir, { base_url: s.emu.url, token: s.emu.token });
    const before = readFileSync(path.join(s.cfg.dir, 'config.json'));
    writeFileSync(path.join(s.cfg.dir, 'config.json.lock'), `${process.pid}\n`);
    const r = await s.cli(['droplets', 'list', '-q'], PROFILE_ONLY);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('301250405');
    expect(readFileSync(path.join(s.cfg.dir, 'config.json'))).toEqual(before);
  });

  it('provider_names only overrides: set to neutral, the neutral path is sent and its 404 is the answer', async () => {
    writeProfile(s.cfg.dir, { base_url: s.emu.url, token: s.emu.token, provider_names: 'neutral' });
    s.emu.clearRequests();
    const r = await s.cli(['droplets', 'list', '-q'], PROFILE_ONLY);
    expect(r.code).toBe(5); // not found
    expect(sent().map((q) => q.path)).toEqual(['/v1/cloud_i/droplets']);
  });
});

describe('against the neutral dialect', () => {
  const s = emulatorSession({ now: NOW, foldersPerTest: true });
  const sent = () => apiRequests(s.emu).filter((r) => String(r.headers['user-agent']).startsWith('backupctl/'));

  it('a remembered published dialect that meets a 404 is probed again, and the new one remembered', async () => {
    writeProfile(s.cfg.dir, { base_url: s.emu.url, token: s.emu.token, detected_provider_names: { base_url: s.emu.url, provider_names: 'published' } });
    const r = await s.cli(['droplets', 'list', '-q'], PROFILE_ONLY);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('301250405');
    expect(readConfig(s.cfg.dir).profiles.default.detected_provider_names).toEqual({ base_url: s.emu.url, provider_names: 'neutral' });
  });

  it('accounts update --provider aws sends cloud_a here (issue 45)', async () => {
    for (const given of ['aws', 'cloud_a']) {
      s.emu.clearRequests();
      const r = await s.cli(['accounts', 'update', '4', '--provider', given]);
      expect(r.code, r.stderr).toBe(0);
      // A neutral service: cloud_a, in the one request sent (nothing probed).
      expect(sent().map((q) => [q.method, (q.body as { provider?: string } | undefined)?.provider])).toEqual([['PATCH', 'cloud_a']]);
    }
  });

  it('status --check fails on a section it could not read, naming it', async () => {
    s.emu.setFaults([{ fault: '500', path: '/v1/cloud_i/volumes' }]);
    try {
      const r = await s.cli(['status', '--check', '--json'], { BACKUPCTL_RETRY_BASE: '1ms' });
      expect(r.code).toBe(9);
      expect(r.stderr).toMatch(/volumes not read/);
      expect(r.stderr).toMatch(/^ {2}volumes: could not be read: /m);
      expect(JSON.parse(r.stdout).unread).toEqual([{ section: 'volumes', reason: expect.any(String) }]);
    } finally {
      s.emu.setFaults([]);
    }
  });
});
