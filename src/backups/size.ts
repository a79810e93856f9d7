// The size a backup record states for a file, and the bounds a transfer of it
// must keep: one parser for download, verify, report and the tables.
import { parseStatedSize, type StatedSize } from '../util/stated-size.js';


/** What a transfer of a file must keep to: its exact length when stated exactly, else the range its rounded text allows. */
export interface SizeBounds {
  /** The exact length ("744 bytes", 744). */
  size?: number;
  /** The fewest bytes that round to the stated text ("12.5 MB": 12.45 MB). */
  minSize?: number;
  /** The most bytes that round to the stated text ("12.5 MB": 12.55 MB). */
  maxSize?: number;
}

/** The bounds of a stated size; none when the record states no size (or one that is not a size). */
export function sizeBounds(stated: unknown): SizeBounds {
  const s = parseStatedSize(stated);
  if (!s) return {};
  if (s.min === s.max) return { size: s.bytes };
  return { minSize: s.min, maxSize: s.max };
}

/** The exact byte count a size states ("744 bytes", 744), or undefined for a rounded or missing one. */
export function exactSize(stated: unknown): number | undefined {
  return sizeBounds(stated).size;
}
