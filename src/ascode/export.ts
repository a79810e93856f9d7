// `backupctl export`: the service's set-up as a backups file. Secrets are
// never written: each is a `${env:NAME}` reference with a comment naming the
// field, to be set before `plan` or `apply`.
import { Document, isMap, isScalar, YAMLMap, type Pair } from 'yaml';
import { KEYLESS_PROVIDERS } from '../resources/storage.js';
import type { BackupsFile, JobEntry, MachineEntry, Section } from './filespec.js';
import type { RecipeIds } from './recipes.js';
import { duplicateNames, findByName, NOT_SET, type CurrentMachine, type CurrentState, type Retention } from './state.js';

export interface ExportProblem {
  kind: string;
  name: string;
  ids: Array<number | string>;
}

/** An environment variable name for a secret: BACKUPCTL_<KIND>_<NAME>_<FIELD>, upper case, A-Z 0-9 _. */
export function secretVariable(...parts: string[]): string {
  return ['BACKUPCTL', ...parts].map((p) => p.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_|_$/g, '')).join('_');
}

/** Keys that name a secret: a password, a DSN or connection string with its password, a credential, a key. */
const SECRET_KEY = /pass(word)?|pwd|secret|token|private|api_?key|access_?key|credential|dsn|connection_?string/i;
/** Whole words of a key (split at _ or -): `auth` but not `author`, `uri` but not `security`. */
const SECRET_WORD = /(^|[_-])(auth|uri)([_-]|$)/i;
const secretKey = (k: string) => SECRET_KEY.test(k) || SECRET_WORD.test(k);
const retention = (r: Retention): Partial<Retention> => Object.fromEntries(Object.entries(r).filter(([, v]) => v > 0));
const scheduled = (m: CurrentMachine) => m.status !== null && m.status !== 'inactive' && m.status !== 'destroyed';

/** A config value as a file holds it: checkboxes become true/false. */
function fileValue(v: string | number | boolean): string | number | boolean {
  if (v === 'True') return true;
  if (v === 'False') return false;
  return v;
}

export function exportState(state: CurrentState, sections: readonly Section[], recipes?: RecipeIds): { file: BackupsFile; comments: Map<string, string>; problems: ExportProblem[] } {
  const file: BackupsFile = { version: 1 };
  const comments = new Map<string, string>();
  const problems: ExportProblem[] = [];
  const dupes = (kind: string, items: ReadonlyArray<{ id: number | string; name: string }>) => {
    for (const d of duplicateNames(items)) problems.push({ kind, ...d });
  };

  if (sections.includes('storage') && state.storage) {
    dupes('storage', state.storage);
    file.storage = {};
    for (const s of [...state.storage].sort((a, b) => a.name.localeCompare(b.name))) {
      file.storage[s.name] = {
        provider: s.provider ?? '',
        ...(s.region ? { region: s.region } : {}),
        ...(s.bucket ? { bucket: s.bucket } : {}),
        ...(s.endpoint ? { endpoint: s.endpoint } : {}),
      };
      if (KEYLESS_PROVIDERS.includes(s.provider ?? '')) continue;
      Object.assign(file.storage[s.name]!, { key: `\${env:${secretVariable('storage', s.name, 'key')}}`, secret: `\${env:${secretVariable('storage', s.name, 'secret')}}` });
      comments.set(`storage\0${s.name}\0key`, ` secret: the access key id of storage "${s.name}" (the service never shows it)`);
      comments.set(`storage\0${s.name}\0secret`, ` secret: the secret access key of storage "${s.name}"`);
    }
  }

  if (sections.includes('jobs') && state.jobs) {
    dupes('job', state.jobs);
    const servers = state.servers ?? [];
    const storage = state.storage ?? [];
    // A reference is a name when the name says which one, else the id.
    const ref = (items: ReadonlyArray<{ id: number | string; name: string | null }>, id: number | string, name: string | null, kind: 'servers' | 'storage') =>
      name !== null && findByName(items, name, kind).found?.id === id ? name : String(id);
    file.jobs = {};
    if (recipes?.byId.size) {
      const known = [...recipes.byId.values()].sort((a, b) => a.id - b.id).map((r) => `${r.slug} = ${r.id}`);
      comments.set('jobs', ` Recipe ids known to backupctl (the service lists none): ${known.join(', ')}`);
    }
    for (const j of [...state.jobs].sort((a, b) => a.name.localeCompare(b.name))) {
      const compute: JobEntry['compute'] =
        j.compute.type === 'server'
          ? { server: ref(servers, j.compute.server_id ?? 0, j.compute.server_name ?? servers.find((s) => s.id === j.compute.server_id)?.name ?? null, 'servers') }
          : j.compute.type === 'ss_serverless'
            ? { serverless: (j.compute.region ?? 'EU') as 'EU' | 'US' }
            : { agent: true };
      const config: Record<string, string | number | boolean> = {};
      for (const [k, v] of Object.entries(j.config)) {
        if (v === NOT_SET) continue;
        if (secretKey(k) || j.secretKeys.includes(k) || (typeof v === 'string' && /^\*+$/.test(v))) {
          config[k] = `\${env:${secretVariable('job', j.name, k)}}`;
          comments.set(`jobs\0${j.name}\0config\0${k}`, ` secret: config ${k} of job "${j.name}" (the service shows it masked)`);
        } else config[k] = fileValue(v);
      }
      const recipeId = j.recipe ? recipes?.bySlug.get(j.recipe)?.id : undefined;
      const entry: JobEntry = {
        recipe: j.recipe ?? '',
        ...(recipeId !== undefined ? { recipe_id: recipeId } : {}),
        compute,
        ...(Object.keys(config).length ? { config } : {}),
        storage: j.storage.map((s, i) => ({ storage: ref(storage, s.id, s.name, 'storage'), priority: i + 1 })),
        schedules: j.schedules.map((s) => ({ cron: s.cron, timezone: s.timezone, run_offset: s.run_offset, retention: retention(s.retention) })),
      };
      if (j.encryption_key_id !== undefined && j.encryption_key_id !== null) entry.encryption_key = String(j.encryption_key_id);
      if (j.proxy_id !== undefined && j.proxy_id !== null) entry.proxy = j.proxy_id;
      file.jobs[j.name] = entry;
      if (recipeId === undefined) comments.set(`jobs\0${j.name}\0recipe`, ' add recipe_id: <n> to create this job where it does not exist (the service shows the slug only)');
    }
  }

  for (const section of ['droplets', 'volumes'] as const) {
    const items = state[section];
    if (!sections.includes(section) || !items) continue;
    const on = items.filter(scheduled);
    dupes(section === 'droplets' ? 'droplet' : 'volume', on);
    const out: Record<string, MachineEntry> = {};
    for (const m of [...on].sort((a, b) => a.name.localeCompare(b.name))) {
      out[m.name] = {
        status: m.status === 'paused' ? 'paused' : 'active',
        ...(m.frequency !== null ? { frequency: m.frequency } : {}),
        ...(m.timezone !== null ? { timezone: m.timezone } : {}),
        ...(m.run_offset !== null ? { run_offset: m.run_offset } : {}),
        retention: retention(m.retention),
      };
    }
    file[section] = out;
  }

  if (sections.includes('resources') && state.resources) {
    file.resources = {};
    for (const r of state.resources.filter((x) => x.activated).sort((a, b) => a.id - b.id)) {
      file.resources[String(r.id)] = { activated: true };
      comments.set(`resources\0${r.id}`, ` ${r.type ?? 'resource'} ${r.last_known_ip ?? ''}`.trimEnd() + '; add frequency, timezone, run_offset and retention to activate it again (the service does not show them)');
    }
  }
  return { file, comments, problems };
}

export const HEADER = [
  ' yaml-language-server: $schema=./backups.schema.json',
  ' The backup set-up, as `backupctl export` wrote it. `backupctl schema file > backups.schema.json` writes',
  ' the schema named above. Check with `backupctl plan -f <this file>`, change with `backupctl apply -f <this file>`.',
  ' Secrets are references (${env:NAME}, or ${file:path} inside this folder). apply needs one only to create or',
  ' replace what holds it; plan needs none, and lists the secrets and files apply would read.',
].join('\n');

/** The YAML text of the file, comments placed on the values they name. */
export function toYaml(file: BackupsFile, comments: ReadonlyMap<string, string>): string {
  const doc = new Document(file);
  doc.commentBefore = HEADER;
  const place = (node: unknown, trail: string[]) => {
    if (!isMap(node)) return;
    for (const pair of (node as YAMLMap).items as Pair[]) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const at = [...trail, key];
      const c = comments.get(at.join('\0'));
      if (c && isScalar(pair.value)) pair.value.comment = c;
      else if (c && isScalar(pair.key)) pair.key.commentBefore = c;
      place(pair.value, at);
    }
  };
  place(doc.contents, []);
  return doc.toString({ lineWidth: 0 });
}
