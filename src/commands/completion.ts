// `backupctl completion bash|zsh|fish` and the hidden `backupctl __complete ids|names <what>`
// the scripts call to offer names and ids. The work is in src/completion/ (issue 25 §19):
// the scripts, generated from the command registry (index.ts), and the look-ups (dynamic.ts).
// The same scripts are committed under completions/ (the build's --docs step writes them).
import type { Handler } from '../contract/context.js';
import type { ModuleSpec } from '../contract/spec.js';
import { NAMED_KINDS } from '../cli/resolve.js';
import { readManifest } from '../cli/startup.js';
import { SHELLS, completionScript, type Shell } from '../completion/index.js';


export const module: ModuleSpec = {
  name: 'completion',
  commands: [
    {
      path: ['completion'],
      summary: 'Print the shell completion script for bash, zsh or fish',
      description:
        'Completes commands, flags, enum values, --profile (the config file\'s profiles), the commands schema takes and ' +
        'each command\'s --columns; from the service, the names of jobs, servers, SSH keys, storage, accounts, droplets and ' +
        'volumes (zsh and fish show each id beside its name; bash quotes a name that holds a space) and the ids of snapshots, restores and backups, ' +
        'cached for a minute. A service that does not answer within 0.4 s of the start is not asked again for 15 s. ' +
        'The same scripts ship in completions/ of the package.',
      examples: [
        'source <(backupctl completion bash)                                   # bash, this shell',
        'backupctl completion bash > ~/.local/share/bash-completion/completions/backupctl',
        'backupctl completion zsh > "${fpath[1]}/_backupctl"                   # zsh, then restart it',
        'backupctl completion fish > ~/.config/fish/completions/backupctl.fish',
      ],
      params: [
        { name: 'shell', in: 'local', type: 'enum', values: SHELLS, positional: true, required: true, description: 'The shell: bash, zsh or fish' },
      ],
      output: { kind: 'object' },
      handler: 'script',
      local: true,
    },
    {
      path: ['__complete'],
      summary: 'Ids and names for shell completion (used by the completion scripts)',
      description:
        'Prints `id<TAB>description` lines (ids) or, for resources with names, `name<TAB>id` lines (names) of the first 100 records, ' +
        'cached for 60 s. One attempt, answered within 0.4 s of the start; after a failure the service is not asked for 15 s. ' +
        'Prints nothing and exits 0 on any error.',
      examples: ['backupctl __complete ids jobs', 'backupctl __complete names servers', 'backupctl __complete ids backups "shop mysql"', 'backupctl __complete ids commands jobs'],
      params: [
        { name: 'what', in: 'local', type: 'string', positional: true, required: true, description: 'What to list: ids or names' },
        {
          name: 'resource',
          in: 'local',
          type: 'string',
          positional: true,
          required: true,
          description:
            'jobs, servers, ssh-keys, storage, accounts, droplets, volumes, snapshots, droplets-snapshots, volumes-snapshots, resources, restores, backups; ' +
            'profiles; commands (those schema takes)',
        },
        {
          name: 'arg1',
          in: 'local',
          type: 'string',
          positional: true,
          description: "The first argument on the command line: the job whose backups, the droplet or volume whose snapshots to list; schema's first word",
        },
        { name: 'arg2', in: 'local', type: 'string', positional: true, description: "The second argument on the command line: schema's second word" },
      ],
      output: { kind: 'object' },
      handler: 'ids',
      alsoCalls: [
        ...Object.values(NAMED_KINDS).flatMap((k) => (k.list ? [`GET ${k.list}`] : [])),
        'GET /snapshots',
        'GET /restore-jobs',
        'GET /jobs/{job_id}/backups',
        'GET /cloud_i/droplets/{droplet_id}/snapshots',
        'GET /cloud_i/volumes/{volume_id}/snapshots',
        'GET /snapshots/resources',
      ],
      hidden: true,
    },
  ],
};

const script: Handler = async (input) => {
  const shell = input.values.shell as Shell;
  return { kind: 'text', text: completionScript(readManifest(), shell) };
};

const ids: Handler = async (input, ctx) => (await import('../completion/dynamic.js')).completeIds(input, ctx);

export const handlers: Record<string, Handler> = { script, ids };
