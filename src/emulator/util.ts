// Small helpers shared by the seed, the routes and the renderers: a seeded
// random generator, id makers and the service's text formats.

export type Rng = () => number;

/** mulberry32: tiny and fast; enough to make data look varied yet identical on every run. */
export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seed from a name (FNV-1a): a job's, a machine's or a file's own generator, the same on every run. */
export function nameSeed(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** Integer in [min, max]. */
export function randInt(rng: Rng, min: number, max: number): number {
  return min + Math.floor(rng() * (max - min + 1));
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)]!;
}

export function randomBytesFrom(rng: Rng, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = Math.floor(rng() * 256);
  return bytes;
}

/** A version-4-shaped UUID drawn from `rng`, so seeded ids repeat across runs. */
export function uuidFrom(rng: Rng): string {
  const b = randomBytesFrom(rng, 16);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** The service stores whole seconds. */
export function wholeSeconds(ms: number): number {
  return Math.floor(ms / SECOND) * SECOND;
}

/** Formatting dates is the costliest part of rendering a page; the same instants come back on every page. */
function memoize<K, V>(compute: (key: K) => V, limit = 100_000): (key: K) => V {
  const cache = new Map<K, V>();
  return (key) => {
    let value = cache.get(key);
    if (value === undefined) {
      if (cache.size >= limit) cache.clear();
      value = compute(key);
      cache.set(key, value);
    }
    return value;
  };
}

/** `2022-01-11T06:40:29.000000Z`, the shape of most datetimes the service sends. */
export const isoMicro = memoize((ms: number): string => `${new Date(ms).toISOString().slice(0, 19)}.000000Z`);

export function isoMicroOrNull(ms: number | null | undefined): string | null {
  return ms == null ? null : isoMicro(ms);
}

/** `2022-01-11 06:40:29`, used by account endpoints and resources' last_synced_at. */
export function sqlDateTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

const SIZE_UNITS = ['bytes', 'KB', 'MB', 'GB', 'TB'] as const;

/** `744 bytes`, `1.2 KB`, `255.89 MB` (1024-based, two decimals at most). */
export function humanSize(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < SIZE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${Number(value.toFixed(2))} ${SIZE_UNITS[unit]}`;
}

/**
 * The human form when it states the length exactly, else `N bytes`: clients compare
 * downloaded lengths with this text, so it must never round.
 */
export function exactSizeText(bytes: number): string {
  const text = humanSize(bytes);
  const [amount, unit] = text.split(' ');
  const factor = 1024 ** SIZE_UNITS.indexOf(unit as (typeof SIZE_UNITS)[number]);
  return Number(amount) * factor === bytes ? text : `${bytes} bytes`;
}

const validZones = new Map<string, boolean>();

export function isValidTimezone(zone: string): boolean {
  let known = validZones.get(zone);
  if (known === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
      known = true;
    } catch {
      known = false;
    }
    validZones.set(zone, known);
  }
  return known;
}

// Making a formatter costs far more than using one; the seed asks for a few zones many times.
const zoneFormatters = new Map<string, Intl.DateTimeFormat>();

/** Offset of `zone` from UTC at instant `ms`, in ms (Europe/Paris in winter: +1 h). */
export function zoneOffset(ms: number, zone: string): number {
  let format = zoneFormatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    zoneFormatters.set(zone, format);
  }
  const parts = format.formatToParts(new Date(ms));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return asUtc - wholeSeconds(ms);
}

const zonedDates = new Map<string, (ms: number) => { day: number; weekday: number }>();

/** The calendar date and weekday in `zone` at instant `ms` (the seed asks for the same runs' dates again and again). */
export function zonedDate(ms: number, zone: string): { day: number; weekday: number } {
  let dateIn = zonedDates.get(zone);
  if (!dateIn) {
    dateIn = memoize((at: number) => {
      const local = new Date(at + zoneOffset(at, zone));
      return { day: local.getUTCDate(), weekday: local.getUTCDay() };
    });
    zonedDates.set(zone, dateIn);
  }
  return dateIn(ms);
}

/** Five whitespace-separated cron fields of digits, `*`, `/`, `,`, `-` or names. */
export function isCronExpression(text: string): boolean {
  const fields = text.trim().split(/\s+/);
  return fields.length === 5 && fields.every((f) => /^[\d*/,\-A-Za-z?]+$/.test(f));
}

/** Backup file stamp: 2024-01-11_06-40-29. */
export const fileStamp = memoize((ms: number): string => new Date(ms).toISOString().slice(0, 19).replace('T', '_').replace(/:/g, '-'));

/**
 * An OpenSSH line for a 4096-bit RSA key: the real wire header (type, e = 65537,
 * a 513-byte modulus) followed by random modulus bytes. Nothing ever uses it as a key.
 */
export function rsaPublicKeyLine(rng: Rng, comment: string): string {
  const type = Buffer.from('ssh-rsa');
  const exponent = Buffer.from([0x01, 0x00, 0x01]);
  const modulus = Buffer.concat([Buffer.from([0x00]), randomBytesFrom(rng, 512)]);
  modulus[1] = modulus[1]! | 0x80;
  const field = (b: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(b.length);
    return Buffer.concat([len, b]);
  };
  const blob = Buffer.concat([field(type), field(exponent), field(modulus)]);
  return `ssh-rsa ${blob.toString('base64')} ${comment}`;
}
