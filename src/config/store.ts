// The config file: validated strictly, changed only under a lock with an
// atomic write (through conf). A broken file is reported, never rewritten.
//
// How conf is used, and where it is wrapped:
// - Reading is done here, directly (readConfigFile): loading conf costs ~20 ms
//   and a read needs none of it. conf reads (under the lock) and writes the
//   file for a change (`cwd: dir`, `configName: 'config'`), and its
//   writes go through `atomically` (temp file in the same folder, fsync, chmod
//   to `configFileMode` 0600, rename), so a killed process leaves the old or the
//   new file. (conf writes in place when $SNAP is set; backupctl is not a snap.)
// - `clearInvalidConfig: false` makes conf throw on a broken file instead of
//   emptying it; our `deserialize` validates the shape with zod there, because
//   conf's own reader turns `null`, `[]` or `"text"` into `{}` before any schema
//   could see them, and a later write would then replace the user's file.
// - conf creates a missing folder with the default mode (0755 under the usual
//   umask), even when only reading: the folder is created 0700 before conf
//   is opened for a write.
// - conf has no locking: see ./lock.ts.
// fs.promises, not node:fs/promises: that module costs ~3 ms to load; only a write needs it.
import { promises as fsp, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, UsageError } from '../errors.js';
import { type LockOptions, withFileLock } from './lock.js';
import { configFilePath } from './paths.js';
import { type ConfigCheck, loadConfigChecker } from './schema.js';
import { type ConfigData, type ProfileData, type ProfileKey, isValidProfileName } from './types.js';

export const DEFAULT_PROFILE = 'default';

export interface ConfigStore {
  /** Absolute path of config.json. */
  readonly file: string;
  /** The folder holding it. */
  readonly dir: string;
  /** The profile marked current in the file, else `default`. */
  currentProfile(): string;
  /** Whether the file marks a profile as current. */
  hasCurrentProfile(): boolean;
  /** Names of the profiles in the file, sorted. */
  profileNames(): string[];
  hasProfile(name: string): boolean;
  /** A copy of the profile's settings; empty when the profile does not exist. */
  profile(name: string): ProfileData;
  /** A copy of the whole content as last read or written. */
  snapshot(): ConfigData;
  /**
   * Locked read-modify-write: re-reads the file under the lock, applies
   * `mutator` to that fresh content, validates and writes it atomically.
   */
  update(mutator: (data: ConfigData) => void, lock?: LockOptions): Promise<void>;
  setValue<K extends ProfileKey>(profile: string, key: K, value: NonNullable<ProfileData[K]>): Promise<void>;
  unsetValue(profile: string, key: ProfileKey): Promise<void>;
  setCurrent(name: string): Promise<void>;
  removeProfile(name: string): Promise<void>;
}

/** Raised inside conf's reader; turned into a ConfigError naming the file. */
class BrokenConfigFile extends Error {}

function emptyConfig(): ConfigData {
  return { profiles: {} };
}

/** The object written to disk: keys in a stable order, no empty current_profile. */
function fileShape(data: ConfigData): Record<string, unknown> {
  return data.current_profile === undefined
    ? { profiles: data.profiles }
    : { current_profile: data.current_profile, profiles: data.profiles };
}

function brokenFileError(file: string, what: string): ConfigError {
  return new ConfigError(`invalid config file ${file}: ${what}`, [
    '  Fix or remove the file; backupctl does not rewrite a config file it cannot read.',
  ]);
}

type ConfInstance = { store: Record<string, unknown> };

let confModule: Promise<typeof import('conf')> | undefined;
/** conf and the zod checker, loaded once; before taking the lock, so it is held only for file work. */
async function loadReader(): Promise<{ Conf: typeof import('conf').default; check: (v: unknown) => ConfigCheck }> {
  confModule ??= import('conf');
  const [{ default: Conf }, check] = await Promise.all([confModule, loadConfigChecker()]);
  return { Conf, check };
}

function openConf(
  { Conf, check }: Awaited<ReturnType<typeof loadReader>>,
  dir: string,
  file: string,
): ConfInstance {
  try {
    return new Conf<Record<string, unknown>>({
      cwd: dir,
      configName: 'config',
      fileExtension: 'json',
      clearInvalidConfig: false,
      configFileMode: 0o600,
      accessPropertiesByDotNotation: false,
      serialize: (value) => `${JSON.stringify(value, null, 2)}\n`,
      deserialize: (text) => fileShape(parseConfigText(text, check)),
    });
  } catch (err) {
    throw readFailure(file, err);
  }
}

/** The file's text as checked content; BrokenConfigFile says what is wrong. */
function parseConfigText(text: string, check: (v: unknown) => ConfigCheck): ConfigData {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new BrokenConfigFile(`not valid JSON (${(err as Error).message})`);
  }
  const r = check(parsed);
  if (!r.ok) throw new BrokenConfigFile(r.problems.join('; '));
  return r.data;
}

function readFailure(file: string, err: unknown): ConfigError {
  if (err instanceof ConfigError) return err;
  if (err instanceof BrokenConfigFile) return brokenFileError(file, err.message);
  return new ConfigError(`cannot read the config file ${file}: ${(err as Error).message}`);
}

/** Reads conf's current content (conf re-reads the file on every access). */
function readStore(conf: ConfInstance, file: string, check: (v: unknown) => ConfigCheck): ConfigData {
  let raw: unknown;
  try {
    raw = conf.store;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return emptyConfig();
    throw readFailure(file, err);
  }
  // conf hands back a null-prototype copy; check again to get a plain ConfigData.
  const r = check({ ...(raw as object) });
  if (!r.ok) throw brokenFileError(file, r.problems.join('; '));
  return r.data;
}

/**
 * Reads the file the way conf's reader does (the whole file, then parseConfigText,
 * as `deserialize` above), without loading conf: conf brought ajv,
 * semver and atomically, ~20 ms on every command of anyone with a config
 * file, and is needed only to write (the bundle has since left ajv and
 * semver out: src/scripts/lazy-builtins.mjs).
 */
async function readConfigFile(file: string): Promise<ConfigData> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return emptyConfig();
    throw readFailure(file, err);
  }
  const check = await loadConfigChecker();
  try {
    return parseConfigText(text, check);
  } catch (err) {
    throw readFailure(file, err);
  }
}

function assertProfileName(name: string): void {
  if (!isValidProfileName(name)) {
    throw new UsageError(
      `invalid profile name ${JSON.stringify(name)}: use letters, digits, ".", "_" and "-", starting with a letter or digit`,
    );
  }
}

class FileConfigStore implements ConfigStore {
  constructor(
    readonly dir: string,
    readonly file: string,
    private data: ConfigData,
  ) {}

  currentProfile(): string {
    return this.data.current_profile ?? DEFAULT_PROFILE;
  }

  hasCurrentProfile(): boolean {
    return this.data.current_profile !== undefined;
  }

  profileNames(): string[] {
    return Object.keys(this.data.profiles).sort();
  }

  hasProfile(name: string): boolean {
    return Object.hasOwn(this.data.profiles, name);
  }

  profile(name: string): ProfileData {
    return this.hasProfile(name) ? { ...this.data.profiles[name] } : {};
  }

  snapshot(): ConfigData {
    return structuredClone(this.data);
  }

  async update(mutator: (data: ConfigData) => void, lock?: LockOptions): Promise<void> {
    const reader = await loadReader();
    const { check } = reader;
    await fsp.mkdir(this.dir, { recursive: true, mode: 0o700 }).catch((err: Error) => {
      throw new ConfigError(`cannot create the config folder ${this.dir}: ${err.message}`);
    });
    await withFileLock(this.file, async () => {
      // Re-read under the lock: another process may have written since we opened the file.
      const conf = openConf(reader, this.dir, this.file);
      const next = readStore(conf, this.file, check);
      mutator(next);
      const r = check(fileShape(next));
      if (!r.ok) throw new ConfigError(`refusing to write an invalid config to ${this.file}: ${r.problems.join('; ')}`);
      try {
        conf.store = fileShape(r.data);
      } catch (err) {
        throw new ConfigError(`cannot write the config file ${this.file}: ${(err as Error).message}`);
      }
      this.data = r.data;
    }, lock);
  }

  async setValue<K extends ProfileKey>(profile: string, key: K, value: NonNullable<ProfileData[K]>): Promise<void> {
    assertProfileName(profile);
    await this.update((data) => {
      const existing = Object.hasOwn(data.profiles, profile) ? data.profiles[profile] : {};
      data.profiles[profile] = { ...existing, [key]: value };
    });
  }

  unsetValue(profile: string, key: ProfileKey): Promise<void> {
    return this.update((data) => {
      if (Object.hasOwn(data.profiles, profile)) delete data.profiles[profile]![key];
    });
  }

  async setCurrent(name: string): Promise<void> {
    assertProfileName(name);
    await this.update((data) => {
      data.current_profile = name;
    });
  }

  removeProfile(name: string): Promise<void> {
    return this.update((data) => {
      if (Object.hasOwn(data.profiles, name)) delete data.profiles[name];
      if (data.current_profile === name) delete data.current_profile;
    });
  }
}

/**
 * Opens `<dir>/config.json`. A missing file reads as an empty config and
 * nothing is created until a write. A file that is not JSON or not the right
 * shape throws ConfigError (exit 3) naming the file and what is wrong.
 */
export async function openConfig(dir: string): Promise<ConfigStore> {
  const absDir = resolve(dir);
  const file = configFilePath(absDir);
  return new FileConfigStore(absDir, file, await readConfigFile(file));
}

export { assertProfileName };

/**
 * Warnings for a config that holds a token and that other local users can reach: the
 * file readable by group or others, or its folder readable or enterable by them (as
 * ssh warns of a private key others can read). On Windows, modes say nothing of that.
 */
export function exposureWarnings(store: ConfigStore): string[] {
  if (process.platform === 'win32') return [];
  if (!store.profileNames().some((name) => store.profile(name).token)) return [];
  const mode = (p: string): number | undefined => {
    try {
      return statSync(p).mode & 0o777;
    } catch {
      return undefined;
    }
  };
  const octal = (m: number) => `0${m.toString(8).padStart(3, '0')}`;
  const out: string[] = [];
  const fileMode = mode(store.file);
  if (fileMode !== undefined && fileMode & 0o044) {
    out.push(`the config file ${store.file} holds a token and other users can read it (mode ${octal(fileMode)}); run: chmod 600 ${store.file}`);
  }
  const dirMode = mode(store.dir);
  if (fileMode !== undefined && dirMode !== undefined && dirMode & 0o055) {
    out.push(`the config folder ${store.dir} can be read or entered by other users (mode ${octal(dirMode)}); run: chmod 700 ${store.dir}`);
  }
  return out;
}
