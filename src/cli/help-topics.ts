// `backupctl help <topic>`: texts that belong to no single command. Plain
// strings, loaded only when a topic is asked for.
import { ExitCode } from '../errors.js';

/** Every exit code with one line; the numbers come from errors.ts so the text cannot drift from the code. */
export const EXIT_CODES: ReadonlyArray<readonly [number, string]> = [
  [ExitCode.ok, 'success'],
  [ExitCode.refused, 'the service refused the request (4xx other than 401, 403, 404); or an internal failure'],
  [ExitCode.usage, 'usage or input error, caught before anything was sent'],
  [ExitCode.config, 'configuration error: no token, no or bad base URL, broken config file'],
  [ExitCode.auth, 'authentication or permission: 401, 403'],
  [ExitCode.notFound, 'not found: 404'],
  [ExitCode.transient, 'transient failure after retries (network, timeout, 429, 5xx), --wait-timeout ran out, or an answer refused (too large, not the expected shape)'],
  [ExitCode.outcomeUnknown, 'outcome unknown: a request not safe to repeat (POST) may have reached the service'],
  [ExitCode.waitFailed, 'an awaited operation ended failed (--wait): the backup failed or expired'],
  [ExitCode.empty, 'a check found nothing: --fail-if-empty, jobs backup latest --max-age, verify with no backup matching; status --check: something failing or stale'],
  [ExitCode.locked, 'another run holds the lock (--lock)'],
  [ExitCode.verifyFailed, 'verify: a file read back failed a check (size, hash changed since an earlier verify, or its content)'],
  [ExitCode.changesPending, 'plan: the service differs from the file (changes pending)'],
  [ExitCode.thresholdBroken, 'report --check: a job broke a threshold (--max-missed, --min-success)'],
  [ExitCode.restoreFailed, 'restore-test: the restore or a check after it failed (rows, --assert, --exec)'],
  [ExitCode.noRestoreEngine, 'not tested: restore-test has no engine or scratch server (give --into, install the server package, or add PGlite; the --into server unreachable); or verify, restore-test or download could not decrypt (--private-key, --decrypt-with)'],
  [ExitCode.retentionGuard, 'retention --check: the newest backup proven by verify or restore-test is predicted to expire before a newer one is proven'],
  [ExitCode.anomalyFound, 'anomalies --check: a backup differs from its job\'s history as damage or ransomware would'],
  [ExitCode.unchecked, 'unchecked, not failed: verify --check or restore-test read the backup but could not check its content (encrypted without a key, a format not read; restore-test: nothing restorable here, or structure-only with --check); --allow-unchecked passes it'],
  [ExitCode.interrupted, 'interrupted (Ctrl-C)'],
  [ExitCode.terminated, 'terminated (SIGTERM), handled like Ctrl-C'],
];

const exitCodes = `Exit codes (the same for every command):

${EXIT_CODES.map(([code, meaning]) => `  ${String(code).padEnd(5)}${meaning}`).join('\n')}

An error is a line on stderr starting with "error:", often followed by indented
lines: a hint for a usage error (what to do instead), the field errors of a 422.
stdout carries results only, so a script can test the exit code and still parse
stdout. Exit 7 is the one to read twice: the
request may have been carried out, so check before sending it again (for a
backup: backupctl jobs backup list <job> --sort -created_at).
`;

const environment = `Environment variables backupctl reads. A flag wins over the environment, and
the environment over the profile. An empty value counts as unset.

  BACKUPCTL_BASE_URL    service address, e.g. https://api.example.com (as --base-url); /v1 is added.
                        https:// only, except loopback (127.0.0.1, ::1, localhost)
  BACKUPCTL_TOKEN       API token; used instead of the profile's stored token. There is no token
                        flag on purpose: arguments end up in shell history and ps
  BACKUPCTL_PROFILE     profile to use (as --profile); default: the current profile, else "default"
  BACKUPCTL_OUTPUT      table, json, ndjson or tsv (as -o/--output)
  BACKUPCTL_TIMEOUT     per-request timeout, e.g. 30s or 2m (as --timeout); default 30s
  BACKUPCTL_PROVIDER_NAMES
                        neutral (cloud_a, /v1/cloud_i) or published (aws, /v1/digitalocean): the
                        provider names sent (as the profile's provider_names); default neutral
  BACKUPCTL_DEBUG       1 or true: HTTP trace on stderr with the token and secrets redacted (as --debug)
  BACKUPCTL_CONFIG_DIR  where profiles and caches live (as --config-dir)
  BACKUPCTL_MAX_ANSWER_SIZE
                        largest answer read from the service, e.g. 128MiB (default 64MiB, at
                        most 500MiB); a larger answer is refused (exit 6), not retried
  BACKUPCTL_MAX_PAGES   most pages one walk reads (--all, status; default 10000); past it the
                        walk stops with a warning on stderr
  BACKUPCTL_RETRY_BASE  first wait before a retry, e.g. 500ms or 2s; it doubles on each retry
                        (jittered); default 500ms
  BACKUPCTL_RETRY_MAX_WAIT
                        longest single wait between retries, a Retry-After answer included,
                        e.g. 10s; default 30s. A bad value of either exits 3 naming it
  BACKUPCTL_RESTORE_URL scratch server restore-test restores SQL into (as --into), postgres://… or
                        mysql://…; its password is never printed
  BACKUPCTL_STATE_URL   a PostgreSQL state the team shares, postgres://… (as the profile's state_url):
                        the marks, the catalog and --ack, verify's ledger, retention's predictions,
                        schedule timings and assure run's leases are kept there, keyed by
                        service; unreachable: exit 3; its password is never printed
                        (docs/assurance.md)
  BACKUPCTL_RESTORE_MAX_DISK
                        most disk a restore-test may fill (its local server's folder, or the
                        scratch database on --into), e.g. 2GiB; default 10GiB. Past it the restore
                        stops (docs/restore-tests.md); a bad value exits 3 naming it
  BACKUPCTL_PG_TEMPLATE 0: restore-test's local PostgreSQL runs initdb each time instead of copying
                        the installation's template cluster (docs/restore-tests.md)
  BACKUPCTL_PRIVATE_KEY_PASSPHRASE
                        passphrase of the --private-key that decrypts encrypted backups on the
                        way (verify, restore-test, download), when no --private-key-pass-file
  BACKUPCTL_URL_REFRESH_AFTER
                        age of a backup's signed URLs past which a file that starts gets fresh
                        ones from the service (verify, restore-test, download); default 30m
  XDG_CONFIG_HOME       when set to an absolute path and BACKUPCTL_CONFIG_DIR is not, profiles live in
                        $XDG_CONFIG_HOME/backupctl
  HOME, USERPROFILE     the default config folder is ~/.config/backupctl
  XDG_STATE_HOME        when absolute, backupctl keeps its state in $XDG_STATE_HOME/backupctl (else
                        ~/.local/state/backupctl): run locks named without a slash (--lock NAME),
                        verify's ledger of file hashes (verify-ledger.json) and the verify
                        and restore-test marks of each backup (marks.json), the schedule timings
                        report has seen (schedule-timing.json), the catalog (catalog/) and
                        retention's predictions; all but the run locks go to the PostgreSQL
                        state instead when BACKUPCTL_STATE_URL or state_url names one
  XDG_CACHE_HOME        where a start-up code cache for another node version is kept
                        ($XDG_CACHE_HOME/backupctl, else ~/.cache/backupctl; docs/startup.md),
                        and restore-test's PostgreSQL template (pg-template/)
  BACKUPCTL_NO_CODE_CACHE
                        1: never write that cache
  BACKUPCTL_SEA_CHILD   internal: set by the single executable on the PGlite child it starts for
                        restore-test; never set it yourself
  BACKUPCTL_COMPLETION_TIMEOUT
                        how long TAB waits for ids from the service, e.g. 2s; default: until
                        0.4 s after backupctl started (one attempt; a failure is kept 15 s)
  NO_COLOR              any non-empty value turns colour off (as --no-color), the spinner's too
  LANG, LC_ALL, LC_CTYPE
                        without UTF-8 in them, status draws its marks in ASCII (so does TERM=linux)
  TERM                  dumb: no colour (unless FORCE_COLOR), no spinner or progress bar;
                        linux: the console font lacks the marks status draws; ASCII is used
  COLUMNS               table width when stdout is not a terminal (on a terminal, its width)
  FORCE_COLOR           0 or false turns colour off; another value turns it on for TERM=dumb;
                        nothing turns it on when stdout is not a terminal (docs/scripting.md)
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY
                        proxy for requests to the service (lower-case names too); NO_PROXY lists
                        hosts reached directly; loopback hosts (localhost, 127.0.0.0/8, ::1)
                        always go direct
  NODE_EXTRA_CA_CERTS   file of extra CA certificates in PEM (a company proxy or a private CA);
                        read by Node.js at start-up

In cron, the environment is nearly empty: set BACKUPCTL_PROFILE (or BACKUPCTL_BASE_URL and
BACKUPCTL_TOKEN) and PATH in the crontab line or the crontab's header. See: backupctl help cron.
`;

const cron = `Running backups from cron

A ready crontab line (crontab -e): start the daily backup of one job at 02:15,
wait until it has finished, and report to a dead man's switch.

  15 2 * * * BACKUPCTL_PROFILE=prod backupctl jobs backup start <job> --daily --wait --wait-timeout 2h --jitter 5m --lock nightly-<job> --healthcheck-url https://hc-ping.com/<uuid> >>/var/log/backupctl.log 2>&1

What each part does:
  BACKUPCTL_PROFILE=prod  the profile logged in with backupctl auth login (cron has no
                          environment of your shell; or set BACKUPCTL_BASE_URL and
                          BACKUPCTL_TOKEN, and PATH if backupctl is not in /usr/bin)
  --daily                 tags the backup as daily, so retention keeps it as one
  --wait                  polls the new backup until it ends, so the exit code says
                          how the backup went, not only that it was started
  --wait-timeout 2h       gives up waiting after 2 hours (exit 6); the backup itself
                          goes on at the service
  --jitter 5m             sleeps a random 0..5 minutes first, so many machines with
                          the same crontab do not all call the service at 02:15:00
  --lock nightly-<job>    exits 10 at once if the previous run still holds the lock,
                          instead of starting a second backup of the same job (and
                          pings /fail). A bare name is a file in your own state folder,
                          $XDG_STATE_HOME/backupctl, else ~/.local/state/backupctl
                          (0700); a path with a slash is used as it is. Not /tmp: any
                          local user could create the lock there first. A lock left by
                          a process that died (or whose pid was reused) is taken over
  --healthcheck-url <url> reports the run to a dead man's switch (healthchecks.io or
                          the like): success or failure, and a run that never
                          happened shows up as a missing ping
  >>log 2>&1              stdout has the result, stderr the errors; keep both

What the exit code means for a cron job:
  0    the backup completed (completed_with_errors too, with a warning; add --strict
       to make that exit 8)
  2    the crontab line is wrong (a flag or value); nothing was sent
  3    no token or base URL for the profile: log in as the user cron runs as
  4    the token was refused (401/403): it expired or was revoked
  5    the job id does not exist (404)
  6    the service could not be reached after retries, or --wait-timeout ran out
  7    the start request may or may not have arrived: do not blindly re-run; check with
       backupctl jobs backup list <job> --sort -created_at
  8    the backup ended failed or expired
  10   the previous run still held the lock; nothing was started (/fail is pinged)
  130  the run was interrupted
See all codes: backupctl help exit-codes.

Checking last night's backup (from a monitoring check or a morning cron line):

  backupctl jobs backup latest <job> --status completed --max-age 26h

prints the newest completed backup of the job and exits 0 when it is younger than
26 hours; it exits 9 when none qualifies, so

  backupctl jobs backup latest <job> --status completed --max-age 26h -q || echo "no backup of <job> since yesterday"

alerts on a missed night (-q prints only the backup's id). Use --json to read the
backup's status, size and times in a script.

Proving last night's backup can be read back (every file downloaded into memory
and checked: size, sha256, gzip/tar/zip/dump structure; nothing written to disk):

  45 6 * * * BACKUPCTL_PROFILE=prod backupctl verify <job> --latest --check --jitter 10m --lock verify-<job> --healthcheck-url https://hc-ping.com/<uuid> >>/var/log/backupctl-verify.log 2>&1

exits 0 when the backup passed, 11 when a file failed (the reason is on stderr) or was
checked for size and hash only (--allow-unchecked accepts that), 6 when a file could
not be read (not-tested: the job is not marked failing), 9 when the job has no
completed backup.

Proving the data comes back (restored into a scratch database, or extracted with a
check run inside; removed afterwards), once a week:

  30 5 * * 0 BACKUPCTL_PROFILE=prod backupctl restore-test <job> --check --lock restore-<job> --healthcheck-url https://hc-ping.com/<uuid> >>/var/log/backupctl-restore.log 2>&1

exits 0 when restored and checked, 14 when the restore or a check failed (or only
the structure was checked: --allow-unchecked accepts that), 15 when no engine or
scratch server is available or an encrypted backup could not be decrypted
(not-tested), 11 when a file failed verify's checks on the way.
`;

/**
 * Topics whose text is made above this floor, from what the commands know (the registry of content
 * kinds, src/pipeline/kinds.ts): their names here (completion, the list of topics), their text from
 * the loader main.ts hands to buildProgram (src/commands/topics.ts).
 */
export const LATER_TOPICS: readonly string[] = ['kinds'];

export const helpTopics: Record<string, { summary: string; text: string }> = {
  'exit-codes': { summary: 'What each exit code means', text: exitCodes },
  environment: { summary: 'Environment variables backupctl reads', text: environment },
  cron: { summary: 'Running backups from cron: a crontab line, exit codes, checking the last backup', text: cron },
};
