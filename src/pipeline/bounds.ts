// The decompression-bomb bounds of the content checks, from the environment:
// BACKUPCTL_VERIFY_MAX_ZIP_ENTRIES (default 100000), BACKUPCTL_VERIFY_MAX_INFLATED
// (default 64GiB, a size such as 200GiB) and BACKUPCTL_VERIFY_MAX_RATIO (default 200).
// verify and restore-test read the same settings (docs/verify.md).
import { ConfigError } from '../errors.js';
import { parseSize } from '../config/size.js';
import { BOUND_SETTINGS, type InspectBounds } from './inspect.js';

/** The bounds the environment raises (or lowers); a bad value is a configuration error (exit 3) naming the variable. */
export function boundsFromEnv(env: NodeJS.ProcessEnv): Partial<InspectBounds> {
  const bounds: Partial<InspectBounds> = {};
  const read = (key: keyof InspectBounds, parse: (text: string) => number, hint: string) => {
    const name = BOUND_SETTINGS[key];
    const text = env[name]?.trim();
    if (!text) return;
    let value: number;
    try {
      value = parse(text);
    } catch {
      value = NaN;
    }
    if (!Number.isFinite(value) || value <= 0) throw new ConfigError(`${name}=${JSON.stringify(text)} is not ${hint}`);
    bounds[key] = value;
  };
  const count = (text: string) => (/^\d+$/.test(text) ? Number(text) : NaN);
  read('maxZipEntries', count, 'a whole number of entries (such as 500000)');
  read('maxInflatedBytes', parseSize, 'a size (such as 200GiB)');
  read('maxGzipRatio', count, 'a whole number (such as 1000)');
  return bounds;
}
