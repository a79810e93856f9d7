// The parameters a command really takes: its own, plus the list flags every
// list command shares. Plain data, used both to declare commander options
// (start-up path) and to check values (src/cli/values.ts).
import type { CommandSpec, ParamSpec } from '../contract/spec.js';

export function listParams(spec: CommandSpec): ParamSpec[] {
  if (spec.output.kind !== 'list' || !spec.list) return [];
  const out: ParamSpec[] = [
    { name: 'page', in: 'query', type: 'integer', min: 1, description: 'Page number (1-based)', placeholder: 'n' },
  ];
  if (spec.list.pageSize !== false) {
    out.push({ name: 'page_size', in: 'query', type: 'integer', min: 15, max: 100, description: 'Records per page, 15..100', placeholder: 'n' });
  }
  out.push({ name: 'all', in: 'local', type: 'boolean', description: 'Follow every page and stream all records' });
  if (spec.list.sort?.length) {
    out.push({
      name: 'sort',
      in: 'query',
      type: 'sort',
      values: spec.list.sort,
      description:
        spec.list.defaultSort === undefined
          ? 'Sort by one field; prefix - for descending'
          : `Sort by one field; prefix - for descending (default ${spec.list.defaultSort}: ${spec.list.defaultSort.startsWith('-') ? 'newest' : 'oldest'} first)`,
      placeholder: 'field',
      ...(spec.list.defaultSort !== undefined ? { default: spec.list.defaultSort } : {}),
    });
  }
  out.push({ name: 'fail_if_empty', in: 'local', type: 'boolean', description: 'Exit 9 when nothing matched' });
  return out;
}

/** --all-profiles and --profiles, on every command that declares `perProfile` (run by src/cli/profiles.ts). */
export const PROFILE_PARAMS: readonly ParamSpec[] = [
  { name: 'all_profiles', in: 'local', type: 'boolean', description: 'Run for every profile of the config: one table with a PROFILE column, a failing profile a row of its own' },
  { name: 'profiles', in: 'local', type: 'string', placeholder: 'a,b', description: 'Run for these profiles (comma-separated): one table with a PROFILE column' },
];

export function effectiveParams(spec: CommandSpec): ParamSpec[] {
  return [...spec.params, ...listParams(spec), ...(spec.perProfile ? PROFILE_PARAMS : [])];
}

export function flagName(p: ParamSpec): string {
  return p.flag ?? apiName(p).replace(/[._]/g, '-');
}

/** The field the value is sent as (the name without a `#suffix`). */
export function apiName(p: ParamSpec): string {
  const i = p.name.indexOf('#');
  return i < 0 ? p.name : p.name.slice(0, i);
}

/** The attribute commander stores an option under (its camelCase rule). */
export function optionKey(p: ParamSpec): string {
  return flagName(p)
    .split('-')
    .map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1)))
    .join('');
}

/** `--provider <provider>`-style text used in help and error messages. */
export function flagLabel(p: ParamSpec): string {
  return p.positional ? `<${flagName(p)}>` : `--${flagName(p)}`;
}
