// Real tokens are not word characters only (issue 31, "tests that could not
// catch"): a Laravel Sanctum token is `<id>|<40 characters>`, a JWT is three
// base64url parts joined by dots, and other services put `/`, `+` and `=` in
// theirs. Every other test token is [A-Za-z0-9_], so a redaction weakened to
// `\w+` passed them all. Here the emulator itself takes such a token, and the
// token (or any 8 characters of it) never reaches stdout or stderr: --debug
// traces, --dry-run, a service that echoes the header back in its error.
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { startTestEmulator } from '../helpers/emulator.js';
import { redactHeaders } from '../../src/http/redact.js';

const TOKENS = [
  '12|Qw7rT9yU1iO3pA5sD7fG9hJ2kL4zX6cV8bN0mQ1w',
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI0MiIsIm5hbWUiOiJvcHMifQ.dGhpcy1pcy1ub3QtYS1yZWFsLXNpZ25hdHVyZQ',
  'ops/Kx9+Lm2=Zq7-Pw4.Yt6_Ab3',
];

/** Any 8 characters in a row of the token. */
const leaks = (text: string, token: string) => Array.from({ length: token.length - 7 }, (_, i) => token.slice(i, i + 8)).filter((piece) => text.includes(piece));

describe('a token with | . - / + = is never shown', () => {
  it.each(TOKENS)('the Authorization header of %s is masked whole', (token) => {
    expect(redactHeaders({ authorization: `Bearer ${token}` })).toEqual({ authorization: 'Bearer ****' });
  });

  it.each(TOKENS)('%s: accepted by the emulator; --debug, --dry-run and a refused token print none of it', async (token) => {
    const emu = await startTestEmulator({ token });
    const cfg = tempConfigDir();
    try {
      const env = { BACKUPCTL_BASE_URL: emu.url, BACKUPCTL_TOKEN: token, BACKUPCTL_CONFIG_DIR: cfg.dir };
      const listed = await runCli(['--debug', 'ssh-keys', 'list', '-q'], { env });
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toMatch(/^(\d+\n)+$/);
      // The trace shows the header, masked: the request did carry it.
      expect(listed.stderr).toContain('> authorization: Bearer ****');
      const dry = await runCli(['--dry-run', 'ssh-keys', 'list'], { env });
      // A token the service refuses: its 401 path prints the token nowhere either.
      const refused = await runCli(['--debug', 'ssh-keys', 'list'], { env: { ...env, BACKUPCTL_TOKEN: `${token}x` } });
      expect(refused.code).not.toBe(0);
      for (const r of [listed, dry, refused]) expect(leaks(r.stdout + r.stderr, token)).toEqual([]);
    } finally {
      cfg.cleanup();
      await emu.close();
    }
  });
});
