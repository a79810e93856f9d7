// The one parser of stated sizes. The service states a file's size as a human
// string ("744 bytes", "12.5 MB", "150.25 KB") or a byte count, and never says whether
// a KB is 1024 or 1000 bytes (the published records read "255.89 MB": issue 30 §3). A
// byte count matches the text when it rounds to it, within half a unit of the last digit
// given, read in 1024s OR in 1000s; only a length that fits neither reading is refused.
// Here, below the output layer, because tables show sizes too; the backups module
// (src/backups/size.ts) is its home for features.

const POWERS: Record<string, number> = { b: 0, byte: 0, bytes: 0, kb: 1, kib: 1, mb: 2, mib: 2, gb: 3, gib: 3, tb: 4, tib: 4 };

/** The base a stated size is read in. */
export type SizeUnit = 1024 | 1000;

/** One reading of a stated size: its bytes and the range that rounds to it. */
export interface SizeReading {
  unit: SizeUnit;
  bytes: number;
  min: number;
  max: number;
}

export interface StatedSize {
  text: string;
  /** The bytes the text stands for in 1024s (the interface's reading), and the range either reading allows (the fewest of both, the most of both). */
  bytes: number;
  min: number;
  max: number;
  /** Each reading's own range (one when the text is in bytes: both are the same). */
  readings: SizeReading[];
}

function reading(value: number, decimals: number, power: number, unit: SizeUnit): SizeReading {
  const factor = unit ** power;
  const bytes = Math.round(value * factor);
  const half = (0.5 * factor) / 10 ** decimals;
  return { unit, bytes, min: Math.max(0, Math.ceil(value * factor - half)), max: Math.floor(value * factor + half) };
}

/** Undefined when the text is not a size (then no size check is made). */
export function parseStatedSize(size: unknown): StatedSize | undefined {
  if (typeof size === 'number' && Number.isInteger(size) && size >= 0) {
    return { text: `${size} bytes`, bytes: size, min: size, max: size, readings: [{ unit: 1024, bytes: size, min: size, max: size }] };
  }
  if (typeof size !== 'string') return undefined;
  const m = /^\s*(\d+)(?:\.(\d+))?\s*([a-z]+)\s*$/i.exec(size);
  const power = m ? POWERS[m[3]!.toLowerCase()] : undefined;
  if (!m || power === undefined) return undefined;
  const decimals = m[2]?.length ?? 0;
  const value = Number(`${m[1]}.${m[2] ?? '0'}`);
  if (power === 0) {
    if (decimals) return undefined;
    return { text: size.trim(), bytes: value, min: value, max: value, readings: [{ unit: 1024, bytes: value, min: value, max: value }] };
  }
  // "KiB" says 1024 plainly; "KB" may be either.
  const binary = /i/i.test(m[3]!.slice(1));
  const readings = binary ? [reading(value, decimals, power, 1024)] : [reading(value, decimals, power, 1024), reading(value, decimals, power, 1000)];
  return {
    text: size.trim(),
    bytes: readings[0]!.bytes,
    min: Math.min(...readings.map((r) => r.min)),
    max: Math.max(...readings.map((r) => r.max)),
    readings,
  };
}

/**
 * Which reading of the stated size `bytes` fits: the `prefer`red unit first (the one the service
 * was seen to use), else 1024 before 1000; undefined when it fits neither.
 */
export function statedSizeFit(stated: StatedSize, bytes: number, prefer?: SizeUnit): SizeReading | undefined {
  const fits = stated.readings.filter((r) => bytes >= r.min && bytes <= r.max);
  return fits.find((r) => r.unit === prefer) ?? fits[0];
}

/** Whether a length tells the unit apart: it fits one reading and not the other. */
export function telltaleUnit(stated: StatedSize, bytes: number): SizeUnit | undefined {
  const fits = stated.readings.filter((r) => bytes >= r.min && bytes <= r.max);
  return fits.length === 1 && stated.readings.length === 2 ? fits[0]!.unit : undefined;
}

/** "1.25 KB: 1245..1255 bytes read in 1000s" */
export function readingText(stated: StatedSize, r: SizeReading): string {
  return `"${stated.text}" read in ${r.unit}s (${r.min === r.max ? r.min : `${r.min}..${r.max}`} bytes)`;
}
