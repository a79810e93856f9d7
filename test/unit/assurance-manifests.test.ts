// docs/assurance.md's Kubernetes CronJob (an Indexed Job) and GitHub Actions workflow (a matrix): they
// parse, run `backupctl assure run` with flags the command has, split into as many shards as they run
// in parallel, and name the variables the page documents.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ROOT } from '../helpers/cli.js';
import { module } from '../../src/commands/assure.js';
import { flagName } from '../../src/cli/params.js';

const page = readFileSync(path.join(ROOT, 'docs', 'assurance.md'), 'utf8');
const yamlBlocks = [...page.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
const docs = yamlBlocks.flatMap((b) => parseAllDocuments(b).map((d) => d.toJS() as Record<string, any>));
const runSpec = module.commands.find((c) => c.path.join(' ') === 'assure run')!;
const FLAGS = new Set([...runSpec.params.map((p) => `--${flagName(p)}`), '--help']);
const VARS = ['BACKUPCTL_BASE_URL', 'BACKUPCTL_TOKEN', 'BACKUPCTL_STATE_URL'];

/** The `backupctl assure run` command of a shell line: its flags and the shard count. */
function assureLine(text: string): { flags: string[]; shards: number } {
  const at = text.indexOf('backupctl assure run');
  expect(at, text).toBeGreaterThanOrEqual(0);
  const rest = text.slice(at);
  const flags = [...rest.matchAll(/(?:^|\s)(--[a-z-]+)/g)].map((m) => m[1]!);
  const shard = /--shard [^\n]*?\/(\d+)/.exec(rest);
  return { flags, shards: Number(shard?.[1]) };
}

describe('the manifests of docs/assurance.md', () => {
  it('the page has both, and every yaml block parses', () => {
    expect(docs.some((d) => d.kind === 'CronJob')).toBe(true);
    expect(docs.some((d) => d.jobs?.assure?.strategy?.matrix)).toBe(true);
  });

  it('the CronJob runs an Indexed Job, one shard per completion, with flags assure run has and the documented variables', () => {
    const cron = docs.find((d) => d.kind === 'CronJob')!;
    const job = cron.spec.jobTemplate.spec;
    expect(job.completionMode).toBe('Indexed');
    const container = job.template.spec.containers[0];
    const line = [...(container.command ?? []), ...(container.args ?? [])].join(' ');
    const { flags, shards } = assureLine(line);
    expect(flags.filter((f) => !FLAGS.has(f))).toEqual([]);
    expect(flags).toContain('--shard');
    expect(shards).toBe(job.completions);
    expect(job.parallelism).toBe(job.completions);
    // The index the Job sets, made 1-based.
    expect(line).toContain('$((JOB_COMPLETION_INDEX + 1))/');
    expect(container.env.map((e: { name: string }) => e.name).sort()).toEqual([...VARS].sort());
    expect(runSpec.params.some((p) => p.name === 'file')).toBe(true);
  });

  it('the workflow runs one shard per matrix entry, with flags assure run has and the documented variables', () => {
    const wf = docs.find((d) => d.jobs?.assure)!;
    const job = wf.jobs.assure;
    const shards: number[] = job.strategy.matrix.shard;
    const step = job.steps.find((s: { run?: string }) => s.run?.includes('backupctl assure run'));
    const { flags, shards: n } = assureLine(step.run);
    expect(flags.filter((f) => !FLAGS.has(f))).toEqual([]);
    expect(step.run).toContain('--shard ${{ matrix.shard }}/');
    expect(shards).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(Object.keys(step.env).sort()).toEqual([...VARS].sort());
  });

  it('the variables the manifests name are the ones the page documents', () => {
    for (const v of VARS) expect(page.replace(/```yaml[\s\S]*?```/g, ''), v).toContain(v);
  });
});
