import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

export const CONFIG_FILE_NAME = 'config.json';

/** An environment variable's value, with empty treated as unset (as `VAR= cmd` means "none"). */
export function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

/**
 * Where profiles live: --config-dir, else $BACKUPCTL_CONFIG_DIR, else
 * $XDG_CONFIG_HOME/backupctl, else ~/.config/backupctl. conf's own default
 * (env-paths, with a `-nodejs` suffix and ~/Library on macOS) is not used:
 * users look for the file where other CLIs keep theirs.
 */
export function configDir(env: NodeJS.ProcessEnv, flagDir?: string): string {
  if (flagDir !== undefined && flagDir.trim() !== '') return resolve(flagDir);
  const fromEnv = envValue(env, 'BACKUPCTL_CONFIG_DIR');
  if (fromEnv) return resolve(fromEnv);
  // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
  const xdg = envValue(env, 'XDG_CONFIG_HOME');
  if (xdg && isAbsolute(xdg)) return join(xdg, 'backupctl');
  const home = envValue(env, 'HOME') ?? envValue(env, 'USERPROFILE') ?? homedir();
  return join(home, '.config', 'backupctl');
}

export function configFilePath(dir: string): string {
  return join(dir, CONFIG_FILE_NAME);
}

/**
 * Per-user state (run locks): $XDG_STATE_HOME/backupctl, else
 * ~/.local/state/backupctl. Not /tmp, where any local user can create the
 * lock first and block the nightly run.
 */
export function stateDir(env: NodeJS.ProcessEnv): string {
  const xdg = envValue(env, 'XDG_STATE_HOME');
  if (xdg && isAbsolute(xdg)) return join(xdg, 'backupctl');
  const home = envValue(env, 'HOME') ?? envValue(env, 'USERPROFILE') ?? homedir();
  return join(home, '.local', 'state', 'backupctl');
}

/**
 * Per-user caches that can be made again (the start-up code cache, restore-test's PostgreSQL
 * template): $XDG_CACHE_HOME/backupctl, else ~/.cache/backupctl.
 */
export function cacheDir(env: NodeJS.ProcessEnv): string {
  const xdg = envValue(env, 'XDG_CACHE_HOME');
  if (xdg && isAbsolute(xdg)) return join(xdg, 'backupctl');
  const home = envValue(env, 'HOME') ?? envValue(env, 'USERPROFILE') ?? homedir();
  return join(home, '.cache', 'backupctl');
}
