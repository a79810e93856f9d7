// The one parser of stated sizes. The service states a file's size as a human
// string ("744 bytes", "12.5 MB", "150.25 KB"; units of 1024), or a byte count.
// A byte count matches it when it rounds to the same text: within half a unit
// of the last digit given. Here, below the output layer, because tables show
// sizes too; the backups module (src/backups/size.ts) is its home for features.

const UNITS: Record<string, number> = { b: 1, byte: 1, bytes: 1, kb: 1024, kib: 1024, mb: 1024 ** 2, mib: 1024 ** 2, gb: 1024 ** 3, gib: 1024 ** 3, tb: 1024 ** 4, tib: 1024 ** 4 };

export interface StatedSize {
  text: string;
  /** The bytes the text stands for, and the range that rounds to it. */
  bytes: number;
  min: number;
  max: number;
}

/** Undefined when the text is not a size (then no size check is made). */
export function parseStatedSize(size: unknown): StatedSize | undefined {
  if (typeof size === 'number' && Number.isInteger(size) && size >= 0) return { text: `${size} bytes`, bytes: size, min: size, max: size };
  if (typeof size !== 'string') return undefined;
  const m = /^\s*(\d+)(?:\.(\d+))?\s*([a-z]+)\s*$/i.exec(size);
  const factor = m ? UNITS[m[3]!.toLowerCase()] : undefined;
  if (!m || factor === undefined) return undefined;
  const decimals = m[2]?.length ?? 0;
  const value = Number(`${m[1]}.${m[2] ?? '0'}`);
  const bytes = Math.round(value * factor);
  if (factor === 1) return decimals ? undefined : { text: size.trim(), bytes, min: bytes, max: bytes };
  const half = (0.5 * factor) / 10 ** decimals;
  return { text: size.trim(), bytes, min: Math.max(0, Math.ceil(value * factor - half)), max: Math.floor(value * factor + half) };
}

