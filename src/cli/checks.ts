// The checks of a command's input that its parameters alone cannot say,
// declared as data on the spec (CommandSpec.checks) and run by the runner
// before anything is sent or printed: --dry-run refuses what the real run
// refuses, with the same words (issue 23 §17). Also the flag transforms that
// run before the request is built.
import type { CommandSpec, ParamSpec } from '../contract/spec.js';
import type { RequestSpec } from '../contract/context.js';
import { UsageError } from '../errors.js';
import { fillTemplate } from './request.js';
import { flagLabel } from './params.js';

/** Flag transforms: each value of a `trim` parameter loses its surrounding whitespace (`line`: then ends with one newline). */
export function transformValues(spec: CommandSpec, values: Record<string, unknown>): void {
  for (const p of spec.params) {
    const v = values[p.name];
    if (p.trim && typeof v === 'string') values[p.name] = p.trim === 'line' ? `${v.trim()}\n` : v.trim();
  }
}

const given = (v: unknown) => v !== undefined && v !== false;

/** Refuses input that the spec's `checks` refuse (exit 2); nothing is sent then, --dry-run included. */
export function checkInput(spec: CommandSpec, values: Record<string, unknown>, request: RequestSpec | undefined): void {
  const checks = spec.checks;
  if (!checks) return;
  const param = (name: string): ParamSpec | undefined => spec.params.find((p) => p.name === name);
  const label = (name: string) => {
    const p = param(name);
    return p ? flagLabel(p) : `--${name}`;
  };
  if (checks.orAll) {
    const { param: one, noun, owner } = checks.orAll;
    const id = values[one];
    const all = values.all === true;
    const ownerText = fillTemplate(owner, values);
    const cmd = `backupctl ${spec.path.join(' ')}`;
    const ownerArg = /\s/.test(ownerText) ? JSON.stringify(ownerText) : ownerText;
    if (all && id !== undefined) {
      throw new UsageError(`give either ${label(one)} or --all, not both`, [
        `One ${noun}: ${cmd} ${ownerArg} ${String(id)}`,
        `Every ${noun}: ${cmd} ${ownerArg} --all`,
      ]);
    }
    if (!all && id === undefined) {
      throw new UsageError(`missing argument ${label(one)}, or --all to delete every ${noun} of ${ownerText}`, [
        `One ${noun}: ${cmd} ${ownerArg} ${label(one)}`,
        `Every ${noun}: ${cmd} ${ownerArg} --all`,
      ]);
    }
  }
  const listed = (names: readonly string[]) => {
    const labels = names.map(label);
    return labels.length > 1 ? `${labels.slice(0, -1).join(', ')} or ${labels[labels.length - 1]}` : labels.join('');
  };
  for (const [names, atLeast] of [[checks.atMostOne, false], [checks.exactlyOne, true]] as const) {
    if (!names) continue;
    const set = names.filter((n) => given(values[n]));
    if (set.length > 1) throw new UsageError(`give one of ${listed(names)}, not ${set.map(label).join(' and ')}`);
    if (atLeast && set.length === 0) throw new UsageError(`give one of ${listed(names)}`);
  }
  if (checks.atLeastOne && !checks.atLeastOne.params.some((n) => given(values[n]))) {
    const { message, hint } = checks.atLeastOne;
    throw new UsageError(fillTemplate(message, values), hint ? [fillTemplate(hint, values)] : []);
  }
  if (checks.nothingToUpdate) {
    const { what, fields, flags } = checks.nothingToUpdate;
    const body = request?.body;
    const keys = body && typeof body === 'object' ? Object.keys(body) : [];
    const changes = fields ? keys.some((k) => fields.includes(k)) : keys.length > 0;
    if (!changes) {
      const named = flags ?? spec.params.filter((p) => p.in === 'body' && !p.hidden && !p.positional).map(flagLabel);
      throw new UsageError(`nothing to update for ${fillTemplate(what, values)}`, [`Give at least one of ${[...new Set(named)].join(', ')}.`]);
    }
  }
}
