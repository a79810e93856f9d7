// `backupctl emulator`: runs the local emulator of the service until Ctrl-C.
// The emulator itself is imported only when the command runs.
import type { CommandInput, Context, Handler, Result } from '../contract/context.js';
import { UsageError } from '../errors.js';
import type { ModuleSpec } from '../contract/spec.js';

export const module: ModuleSpec = {
  name: 'emulator',
  commands: [
    {
      path: ['emulator'],
      runsUntilInterrupted: true,
      summary: 'Run a local emulator of the backup service (for trying the CLI and for tests)',
      description:
        'Serves every endpoint of the service on 127.0.0.1 from in-memory demo data, and backup files ' +
        'behind signed URLs on a second port. Prints BACKUPCTL_BASE_URL and BACKUPCTL_TOKEN lines on ' +
        'stdout for the shell, then runs until interrupted. The token is the emulator\'s own, never ' +
        'your API token.',
      examples: [
        'backupctl emulator',
        'backupctl emulator --port 8080 --token emu_local --seed empty',
        'backupctl emulator --latency 200 --fault 500:count=2:path=/v1/servers --fault 429:rate=0.2',
        'backupctl emulator --outcome failed --big-job 10000',
        'backupctl emulator --damaged-files --changing-files --big-file 1024',
        'backupctl emulator --now 2027-03-28T01:30:00Z',
        'backupctl emulator --dialect published',
      ],
      local: true,
      handler: 'emulator',
      params: [
        { name: 'port', in: 'local', type: 'integer', default: 0, placeholder: 'port', min: 0, max: 65535, description: 'Port of the API; 0 picks a free one' },
        {
          name: 'token',
          in: 'local',
          type: 'string',
          placeholder: 'token',
          description: 'Bearer token the emulator accepts (its own, not your API token); random when absent',
        },
        {
          name: 'seed',
          in: 'local',
          type: 'enum',
          values: ['demo', 'empty'],
          default: 'demo',
          description: 'Starting data: a realistic team, or only the first SSH key',
        },
        { name: 'latency', in: 'local', type: 'integer', default: 0, min: 0, placeholder: 'ms', description: 'Delay before every answer, in milliseconds' },
        {
          name: 'fault',
          in: 'local',
          type: 'string',
          repeatable: true,
          placeholder: 'spec',
          description:
            'Inject a fault: KIND[:count=N][:rate=R][:method=M][:path=P][:retryAfter=S], KIND one of 429, 500, ' +
            '502-html, 503, reset, timeout, truncated, not-json, slow-body',
        },
        {
          name: 'outcome',
          in: 'local',
          type: 'enum',
          values: ['completed', 'failed', 'completed_with_errors'],
          description: 'How started backups end (default completed; jobs named with "fail" always fail)',
        },
        { name: 'big_job', flag: 'big-job', in: 'local', type: 'integer', min: 0, placeholder: 'n', description: 'Add a job "bulk" holding this many backups' },
        { name: 'damaged_files', in: 'local', type: 'boolean', description: 'Add a job "damaged files": one backup per fault verify must catch (truncated, flipped byte, bad tar header, no dump end marker, wrong size)' },
        { name: 'bad_night', in: 'local', type: 'boolean', description: 'Add the jobs of the anomalies demo: "file share" (20 normal nightly tar backups, then two nights of ransomware) and "crm postgres" (its newest dump lost 90% of one table)' },
        { name: 'archive_faults', in: 'local', type: 'boolean', description: 'Add the jobs of restore-test\'s faults and formats: "unsafe archive" (a ../ entry), "broken dump", "missing rows", "needs role", "broken mysql", "two databases", "pg custom", "mariadb dump" (real pg_dump and mariadb-dump files), and hostile archives: "tar bomb", "many entries", "dangling link chain", "two-link chain"' },
        { name: 'retention_jobs', in: 'local', type: 'boolean', description: 'Add the jobs of the retention forecast: "retention lowered" (daily 7 over 10 daily backups), "retention gfs" (daily 4, weekly 2, monthly 1 over 60 days), "retention guard" (daily 2: a verify of its newest backup proves one two runs from expiring)' },
        { name: 'fleet_jobs', in: 'local', type: 'integer', min: 0, max: 10000, placeholder: 'n', description: 'Add n jobs "fleet 0001" ... each with three nights of small file backups (a large fleet for tests and benchmarks)' },
        { name: 'changing_files', in: 'local', type: 'boolean', description: 'Serve different bytes on every whole download of a file (a new gzip timestamp), as bit rot would' },
        { name: 'url_ttl', in: 'local', type: 'duration', placeholder: 'duration', description: 'How long the signed URLs handed out hold (e.g. 2s, 1h); the store answers 403 "Request has expired" after. Default: a week in backup records, an hour from POST /backups/{id}/download' },
        { name: 'big_file', in: 'local', type: 'integer', min: 1, max: 65536, placeholder: 'MiB', description: 'Add a job "big file" with one .tar.gz of this many MiB, made while it is sent' },
        {
          name: 'dialect',
          in: 'local',
          type: 'enum',
          values: ['neutral', 'published'],
          default: 'neutral',
          description:
            'How the emulator speaks: neutral (the interface document: cloud_a, /v1/cloud_i/...) or published (the public API ' +
            'reference: aws, /v1/digitalocean/..., frequency schedules, storage paths as file names, sizes in 1000s, links: {} and meta: {})',
        },
        { name: 'tick', in: 'local', type: 'integer', default: 300, min: 1, placeholder: 'ms', description: 'Time per step of a started backup, in milliseconds' },
        {
          name: 'now',
          in: 'local',
          type: 'datetime',
          placeholder: 'time',
          description:
            "Start the emulator's clock at this instant (ISO 8601, or an age such as 30d for that long ago): the demo " +
            'history is laid back from it and the clock runs on from there. Default: the real clock',
        },
      ],
      output: { kind: 'none' },
    },
  ],
};

function optionalNumber(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

const runEmulator: Handler = async (input: CommandInput, ctx: Context): Promise<Result> => {
  const { startEmulator, parseFaultSpec, FaultSpecError } = await import('../emulator/index.js');
  const v = input.values;
  const specs = v.fault === undefined ? [] : Array.isArray(v.fault) ? (v.fault as string[]) : [String(v.fault)];
  const faults = specs.map((spec) => {
    try {
      return parseFaultSpec(spec);
    } catch (err) {
      if (err instanceof FaultSpecError) throw new UsageError(`invalid --fault ${JSON.stringify(spec)}: ${err.message}`);
      throw err;
    }
  });

  let emu;
  try {
    emu = await startEmulator({
      port: optionalNumber(v.port) ?? 0,
      token: typeof v.token === 'string' && v.token !== '' ? v.token : undefined,
      seed: v.seed === 'empty' ? 'empty' : 'demo',
      latencyMs: optionalNumber(v.latency) ?? 0,
      faults,
      backupOutcome: (v.outcome as 'completed' | 'failed' | 'completed_with_errors' | undefined) ?? 'completed',
      tickMs: optionalNumber(v.tick),
      bigJob: optionalNumber(v.big_job),
      damagedFiles: v.damaged_files === true,
      changingFiles: v.changing_files === true,
      archiveFaults: v.archive_faults === true,
      retentionJobs: v.retention_jobs === true,
      badNight: v.bad_night === true,
      fleetJobs: optionalNumber(v.fleet_jobs),
      bigFile: v.big_file === undefined ? undefined : Number(v.big_file) * 1024 * 1024,
      now: typeof v.now === 'string' ? Date.parse(v.now) : undefined,
      dialect: v.dialect === 'published' ? 'published' : 'neutral',
      urlTtlMs: optionalNumber(v.url_ttl),
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') throw new UsageError(`cannot listen on port ${String(v.port)}: ${code}`);
    throw err;
  }

  // The only place the emulator's token is printed: the lines a shell evaluates.
  ctx.io.stdout.write(`BACKUPCTL_BASE_URL=${emu.url}\nBACKUPCTL_TOKEN=${emu.token}\n`);
  ctx.io.stderr.write(`Emulator running; Ctrl-C to stop. Files served on ${emu.filesUrl}.\n`);

  await new Promise<void>((resolve) => {
    const stop = () => {
      ctx.signal.removeEventListener('abort', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    if (ctx.signal.aborted) return resolve();
    ctx.signal.addEventListener('abort', stop, { once: true });
    process.once('SIGTERM', stop);
  });
  await emu.close();
  return { kind: 'empty' };
};

export const handlers = { emulator: runEmulator };
