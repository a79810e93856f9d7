import { UsageError } from '../errors.js';

const UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, kb: 1024, kib: 1024, m: 1024 ** 2, mb: 1024 ** 2, mib: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3, gib: 1024 ** 3 };

export const SIZE_HINT = 'use a size such as 64MiB, 512KiB or 1GiB (a bare number is bytes; MB, KB and GB mean MiB, KiB and GiB)';

/**
 * `64MiB`, `512KiB`, `1GiB`, `1.5M` (binary multiples, as humanBytes prints them; `64MB` is
 * read as 64 MiB too), a bare
 * number is bytes -> bytes. Throws UsageError for anything else or 0; callers reading
 * the environment turn that into a ConfigError naming the variable.
 */
export function parseSize(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = m ? UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || unit === undefined) throw new UsageError(`invalid size ${JSON.stringify(text)}: ${SIZE_HINT}`);
  const bytes = Math.floor(Number(m[1]) * unit);
  if (bytes <= 0) throw new UsageError(`invalid size ${JSON.stringify(text)}: must be more than 0`);
  return bytes;
}
