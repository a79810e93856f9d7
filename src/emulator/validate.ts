// Request validation with Laravel's rules and messages, so clients meet the
// same 422 bodies as from the real service. Each check reads one field
// (dotted names walk nested objects), records at most one message per field,
// and returns the value converted, or undefined when absent or invalid.
import { validationError } from './reply.js';
import { isValidTimezone } from './util.js';

export type Input = Record<string, unknown>;

interface Presence {
  required?: boolean;
}

/** Laravel shows `ssh_port` as "ssh port" and keeps dots: "credentials.key". */
export function attributeName(field: string): string {
  return field.replace(/_/g, ' ');
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class Validation {
  readonly errors: Record<string, string[]> = {};

  constructor(private readonly input: Input) {}

  value(field: string): unknown {
    let current: unknown = this.input;
    for (const part of field.split('.')) {
      if (Array.isArray(current) && /^\d+$/.test(part)) current = current[Number(part)];
      else if (isObject(current)) current = current[part];
      else return undefined;
    }
    return current;
  }

  /** Laravel's notion of a value being there: not missing, null, '' or []. */
  filled(field: string): boolean {
    const v = this.value(field);
    return !(v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0));
  }

  fail(field: string, message: string): void {
    if (!this.errors[field]) this.errors[field] = [message];
  }

  hasError(field: string): boolean {
    return field in this.errors;
  }

  /** True when the field should be checked further; records "required" when it must be there. */
  private present(field: string, opts: Presence): boolean {
    if (this.filled(field)) return true;
    if (opts.required) this.fail(field, `The ${attributeName(field)} field is required.`);
    return false;
  }

  string(field: string, opts: Presence & { max?: number; oneOf?: readonly string[] } = {}): string | undefined {
    if (!this.present(field, opts)) return undefined;
    const v = this.value(field);
    const name = attributeName(field);
    if (typeof v !== 'string') return void this.fail(field, `The ${name} field must be a string.`);
    if (opts.max !== undefined && v.length > opts.max)
      return void this.fail(field, `The ${name} field must not be greater than ${opts.max} characters.`);
    if (opts.oneOf && !opts.oneOf.includes(v)) return void this.fail(field, `The selected ${name} is invalid.`);
    return v;
  }

  /** Integers, or strings of digits as Laravel's `integer` rule allows. */
  integer(field: string, opts: Presence & { min?: number; max?: number } = {}): number | undefined {
    if (!this.present(field, opts)) return undefined;
    const v = this.value(field);
    const name = attributeName(field);
    const n =
      typeof v === 'number' && Number.isInteger(v)
        ? v
        : typeof v === 'string' && /^[+-]?\d+$/.test(v)
          ? Number(v)
          : undefined;
    if (n === undefined) return void this.fail(field, `The ${name} field must be an integer.`);
    const { min, max } = opts;
    if (min !== undefined && max !== undefined && (n < min || n > max))
      return void this.fail(field, `The ${name} field must be between ${min} and ${max}.`);
    if (min !== undefined && n < min) return void this.fail(field, `The ${name} field must be at least ${min}.`);
    if (max !== undefined && n > max)
      return void this.fail(field, `The ${name} field must not be greater than ${max}.`);
    return n;
  }

  /** true, false, 1, 0, "1", "0", as Laravel's `boolean` rule accepts. */
  boolean(field: string, opts: Presence = {}): boolean | undefined {
    if (!this.present(field, opts)) return undefined;
    const v = this.value(field);
    if (v === true || v === 1 || v === '1') return true;
    if (v === false || v === 0 || v === '0') return false;
    return void this.fail(field, `The ${attributeName(field)} field must be true or false.`);
  }

  /** A JSON object; Laravel calls these arrays. */
  object(field: string, opts: Presence = {}): Record<string, unknown> | undefined {
    if (!this.present(field, opts)) return undefined;
    const v = this.value(field);
    if (!isObject(v)) return void this.fail(field, `The ${attributeName(field)} field must be an array.`);
    return v;
  }

  list(field: string, opts: Presence & { min?: number } = {}): unknown[] | undefined {
    if (!this.present(field, opts)) return undefined;
    const v = this.value(field);
    const name = attributeName(field);
    if (!Array.isArray(v)) return void this.fail(field, `The ${name} field must be an array.`);
    if (opts.min !== undefined && v.length < opts.min)
      return void this.fail(field, `The ${name} field must have at least ${opts.min} item${opts.min === 1 ? '' : 's'}.`);
    return v;
  }

  timezone(field: string, opts: Presence = {}): string | undefined {
    const zone = this.string(field, opts);
    if (zone === undefined) return undefined;
    if (!isValidTimezone(zone)) return void this.fail(field, `The ${attributeName(field)} field must be a valid timezone.`);
    return zone;
  }

  /** An ISO 8601 date or datetime, as milliseconds. */
  date(field: string, opts: Presence = {}): number | undefined {
    if (!this.present(field, opts)) return undefined;
    const v = this.value(field);
    const ms = typeof v === 'string' ? parseIsoDate(v) : NaN;
    if (Number.isNaN(ms)) return void this.fail(field, `The ${attributeName(field)} field must be a valid date.`);
    return ms;
  }

  /** Adds "The selected x is invalid." unless `exists` holds (Laravel's `exists` rule). */
  exists(field: string, exists: boolean): void {
    if (!exists) this.fail(field, `The selected ${attributeName(field)} is invalid.`);
  }

  /** Throws the 422 when any check failed. */
  check(): void {
    if (Object.keys(this.errors).length > 0) throw validationError(this.errors);
  }
}

const ISO_DATE = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:?\d{2})?)?$/;

/** ISO 8601 date or datetime; without a zone it is UTC, as on the service. NaN when not one. */
export function parseIsoDate(text: string): number {
  const m = ISO_DATE.exec(text);
  if (!m) return NaN;
  const [, day, time, zone] = m;
  return Date.parse(time ? `${day}T${time}${zone ?? 'Z'}` : `${day}T00:00:00Z`);
}
