# bash completion for backupctl
# Generated from the command registry by `npm run docs` (the same as `backupctl completion bash`); do not edit.
#
# This shell:      source <(backupctl completion bash)
# Every shell:     backupctl completion bash > ~/.local/share/bash-completion/completions/backupctl
# Names of jobs, servers, keys, storage, accounts, droplets and volumes (quoted when they hold a space), and the ids
# of snapshots, restores and backups come from the service (backupctl __complete names jobs), cached for a minute;
# profiles from the config file.

# The command that word $2 names below command $1 ('' is the top), or nothing.
__backupctl_command() {
  case "$1/$2" in
    '/auth') echo 'auth' ;;
    '/profiles') echo 'profiles' ;;
    '/config') echo 'config' ;;
    '/doctor') echo 'doctor' ;;
    '/servers') echo 'servers' ;;
    '/ssh-keys') echo 'ssh-keys' ;;
    '/snapshots') echo 'snapshots' ;;
    '/accounts') echo 'accounts' ;;
    '/resources') echo 'resources' ;;
    '/storage') echo 'storage' ;;
    '/droplets') echo 'droplets' ;;
    '/volumes') echo 'volumes' ;;
    '/jobs') echo 'jobs' ;;
    '/restores') echo 'restores' ;;
    '/encryption-keys') echo 'encryption-keys' ;;
    '/backups') echo 'backups' ;;
    '/status') echo 'status' ;;
    '/verify') echo 'verify' ;;
    '/restore-test') echo 'restore-test' ;;
    '/report') echo 'report' ;;
    '/retention') echo 'retention' ;;
    '/scan') echo 'scan' ;;
    '/anomalies') echo 'anomalies' ;;
    '/ls') echo 'ls' ;;
    '/find') echo 'find' ;;
    '/diff') echo 'diff' ;;
    '/restore-file') echo 'restore-file' ;;
    '/export') echo 'export' ;;
    '/plan') echo 'plan' ;;
    '/apply') echo 'apply' ;;
    '/state') echo 'state' ;;
    '/assure') echo 'assure' ;;
    '/api') echo 'api' ;;
    '/schema') echo 'schema' ;;
    '/completion') echo 'completion' ;;
    '/emulator') echo 'emulator' ;;
    '/version') echo 'version' ;;
    '/help') echo 'help' ;;
    'auth/login') echo 'auth login' ;;
    'auth/status') echo 'auth status' ;;
    'auth/logout') echo 'auth logout' ;;
    'auth/token') echo 'auth token' ;;
    'profiles/list') echo 'profiles list' ;;
    'profiles/use') echo 'profiles use' ;;
    'profiles/remove') echo 'profiles remove' ;;
    'profiles/delete') echo 'profiles remove' ;;
    'config/get') echo 'config get' ;;
    'config/set') echo 'config set' ;;
    'config/unset') echo 'config unset' ;;
    'config/list') echo 'config list' ;;
    'config/path') echo 'config path' ;;
    'servers/list') echo 'servers list' ;;
    'servers/add') echo 'servers add' ;;
    'servers/create') echo 'servers add' ;;
    'servers/code') echo 'servers code' ;;
    'ssh-keys/list') echo 'ssh-keys list' ;;
    'ssh-keys/create') echo 'ssh-keys create' ;;
    'ssh-keys/add') echo 'ssh-keys create' ;;
    'ssh-keys/rename') echo 'ssh-keys rename' ;;
    'ssh-keys/delete') echo 'ssh-keys delete' ;;
    'ssh-keys/remove') echo 'ssh-keys delete' ;;
    'snapshots/list') echo 'snapshots list' ;;
    'snapshots/get') echo 'snapshots get' ;;
    'snapshots/delete') echo 'snapshots delete' ;;
    'snapshots/remove') echo 'snapshots delete' ;;
    'accounts/list') echo 'accounts list' ;;
    'accounts/add') echo 'accounts add' ;;
    'accounts/create') echo 'accounts add' ;;
    'accounts/update') echo 'accounts update' ;;
    'accounts/delete') echo 'accounts delete' ;;
    'accounts/remove') echo 'accounts delete' ;;
    'accounts/sync') echo 'accounts sync' ;;
    'resources/list') echo 'resources list' ;;
    'resources/get') echo 'resources get' ;;
    'resources/activate') echo 'resources activate' ;;
    'resources/deactivate') echo 'resources deactivate' ;;
    'resources/clear') echo 'resources clear' ;;
    'storage/list') echo 'storage list' ;;
    'storage/add') echo 'storage add' ;;
    'storage/create') echo 'storage add' ;;
    'storage/update') echo 'storage update' ;;
    'storage/delete') echo 'storage delete' ;;
    'storage/remove') echo 'storage delete' ;;
    'droplets/list') echo 'droplets list' ;;
    'droplets/get') echo 'droplets get' ;;
    'droplets/update') echo 'droplets update' ;;
    'droplets/activate') echo 'droplets activate' ;;
    'droplets/pause') echo 'droplets pause' ;;
    'droplets/resume') echo 'droplets resume' ;;
    'droplets/deactivate') echo 'droplets deactivate' ;;
    'droplets/snapshot') echo 'droplets snapshot' ;;
    'droplets snapshot/list') echo 'droplets snapshot list' ;;
    'droplets snapshot/create') echo 'droplets snapshot create' ;;
    'droplets snapshot/add') echo 'droplets snapshot create' ;;
    'droplets snapshot/delete') echo 'droplets snapshot delete' ;;
    'droplets snapshot/remove') echo 'droplets snapshot delete' ;;
    'volumes/list') echo 'volumes list' ;;
    'volumes/get') echo 'volumes get' ;;
    'volumes/update') echo 'volumes update' ;;
    'volumes/activate') echo 'volumes activate' ;;
    'volumes/pause') echo 'volumes pause' ;;
    'volumes/resume') echo 'volumes resume' ;;
    'volumes/deactivate') echo 'volumes deactivate' ;;
    'volumes/snapshot') echo 'volumes snapshot' ;;
    'volumes snapshot/list') echo 'volumes snapshot list' ;;
    'volumes snapshot/create') echo 'volumes snapshot create' ;;
    'volumes snapshot/add') echo 'volumes snapshot create' ;;
    'volumes snapshot/delete') echo 'volumes snapshot delete' ;;
    'volumes snapshot/remove') echo 'volumes snapshot delete' ;;
    'jobs/list') echo 'jobs list' ;;
    'jobs/get') echo 'jobs get' ;;
    'jobs/create') echo 'jobs create' ;;
    'jobs/add') echo 'jobs create' ;;
    'jobs/update') echo 'jobs update' ;;
    'jobs/delete') echo 'jobs delete' ;;
    'jobs/remove') echo 'jobs delete' ;;
    'jobs/backup') echo 'jobs backup' ;;
    'jobs/encryption-key') echo 'jobs encryption-key' ;;
    'jobs/proxy') echo 'jobs proxy' ;;
    'jobs/schedule') echo 'jobs schedule' ;;
    'jobs/storage') echo 'jobs storage' ;;
    'jobs backup/start') echo 'jobs backup start' ;;
    'jobs backup/list') echo 'jobs backup list' ;;
    'jobs backup/get') echo 'jobs backup get' ;;
    'jobs backup/delete') echo 'jobs backup delete' ;;
    'jobs backup/remove') echo 'jobs backup delete' ;;
    'jobs backup/latest') echo 'jobs backup latest' ;;
    'jobs backup/download') echo 'jobs backup download' ;;
    'jobs encryption-key/set') echo 'jobs encryption-key set' ;;
    'jobs encryption-key/remove') echo 'jobs encryption-key remove' ;;
    'jobs encryption-key/delete') echo 'jobs encryption-key remove' ;;
    'jobs proxy/set') echo 'jobs proxy set' ;;
    'jobs proxy/remove') echo 'jobs proxy remove' ;;
    'jobs proxy/delete') echo 'jobs proxy remove' ;;
    'jobs schedule/update') echo 'jobs schedule update' ;;
    'jobs storage/set') echo 'jobs storage set' ;;
    'restores/list') echo 'restores list' ;;
    'restores/get') echo 'restores get' ;;
    'encryption-keys/create') echo 'encryption-keys create' ;;
    'encryption-keys/add') echo 'encryption-keys create' ;;
    'encryption-keys/delete') echo 'encryption-keys delete' ;;
    'encryption-keys/remove') echo 'encryption-keys delete' ;;
    'backups/get') echo 'backups get' ;;
    'backups/delete') echo 'backups delete' ;;
    'backups/remove') echo 'backups delete' ;;
    'backups/urls') echo 'backups urls' ;;
    'state/migrate') echo 'state migrate' ;;
    'assure/run') echo 'assure run' ;;
    'assure/status') echo 'assure status' ;;
  esac
}

# The subcommands of command $1.
__backupctl_subcommands() {
  case "$1" in
    '') echo 'auth profiles config doctor servers ssh-keys snapshots accounts resources storage droplets volumes jobs restores encryption-keys backups status verify restore-test report retention scan anomalies ls find diff restore-file export plan apply state assure api schema completion emulator version help' ;;
    'auth') echo 'login status logout token' ;;
    'profiles') echo 'list use remove delete' ;;
    'config') echo 'get set unset list path' ;;
    'servers') echo 'list add create code' ;;
    'ssh-keys') echo 'list create add rename delete remove' ;;
    'snapshots') echo 'list get delete remove' ;;
    'accounts') echo 'list add create update delete remove sync' ;;
    'resources') echo 'list get activate deactivate clear' ;;
    'storage') echo 'list add create update delete remove' ;;
    'droplets') echo 'list get update activate pause resume deactivate snapshot' ;;
    'droplets snapshot') echo 'list create add delete remove' ;;
    'volumes') echo 'list get update activate pause resume deactivate snapshot' ;;
    'volumes snapshot') echo 'list create add delete remove' ;;
    'jobs') echo 'list get create add update delete remove backup encryption-key proxy schedule storage' ;;
    'jobs backup') echo 'start list get delete remove latest download' ;;
    'jobs encryption-key') echo 'set remove delete' ;;
    'jobs proxy') echo 'set remove delete' ;;
    'jobs schedule') echo 'update' ;;
    'jobs storage') echo 'set' ;;
    'restores') echo 'list get' ;;
    'encryption-keys') echo 'create add delete remove' ;;
    'backups') echo 'get delete remove urls' ;;
    'state') echo 'migrate' ;;
    'assure') echo 'run status' ;;
  esac
}

# The flags of command $1, without the global ones.
__backupctl_flags() {
  case "$1" in
    'auth login') echo '--with-token --provider-names' ;;
    'servers list') echo '--name --host --modified-since --page --page-size --all --sort --fail-if-empty' ;;
    'servers add') echo '--name --host --port --user --key' ;;
    'servers code') echo '--key' ;;
    'ssh-keys list') echo '--modified-since --page --page-size --all --sort --fail-if-empty' ;;
    'ssh-keys create') echo '--name' ;;
    'snapshots list') echo '--provider --status --tags --without-tags --started-since --completed-since --page --page-size --all --sort --fail-if-empty' ;;
    'accounts list') echo '--provider --modified-since --page --page-size --all --sort --fail-if-empty' ;;
    'accounts add') echo '--name --provider --credentials-file --key --secret --region --zone --username --password' ;;
    'accounts update') echo '--name --provider --credentials-file --key --secret --region --zone --username --password' ;;
    'resources list') echo '--provider --modified-since --page --page-size --all --sort --fail-if-empty' ;;
    'resources activate') echo '--frequency --retention-hourly --retention-daily --retention-weekly --retention-monthly --timezone --run-offset' ;;
    'storage list') echo '--provider --region --modified-since --page --page-size --all --sort --fail-if-empty' ;;
    'storage add') echo '--name --provider --key --secret --secret-file --bucket --endpoint --region' ;;
    'storage update') echo '--name --key --secret --secret-file' ;;
    'droplets list') echo '--name --host --status --modified-since --page --page-size --all --sort --fail-if-empty' ;;
    'droplets update') echo '--frequency --retention-hourly --retention-daily --retention-weekly --retention-monthly --timezone --run-offset --secondary-region --no-secondary-region' ;;
    'droplets activate') echo '--frequency --retention-hourly --retention-daily --retention-weekly --retention-monthly --timezone --run-offset --secondary-region --no-secondary-region' ;;
    'droplets snapshot list') echo '--status --tags --without-tags --started-since --completed-since --page --page-size --all --sort --fail-if-empty' ;;
    'droplets snapshot delete') echo '--all' ;;
    'volumes list') echo '--name --status --modified-since --page --page-size --all --sort --fail-if-empty' ;;
    'volumes update') echo '--frequency --retention-hourly --retention-daily --retention-weekly --retention-monthly --timezone --run-offset' ;;
    'volumes activate') echo '--frequency --retention-hourly --retention-daily --retention-weekly --retention-monthly --timezone --run-offset' ;;
    'volumes snapshot list') echo '--status --tags --without-tags --started-since --completed-since --page --page-size --all --sort --fail-if-empty' ;;
    'volumes snapshot delete') echo '--all' ;;
    'jobs list') echo '--host --modified-since --page --page-size --all --sort --fail-if-empty' ;;
    'jobs create') echo '--file --name --recipe-id --server --serverless --agent --config --storage --cron --frequency --run-offset --timezone --retention-hourly --retention-daily --retention-weekly --retention-monthly --encryption-key --proxy' ;;
    'jobs update') echo '--file --storage' ;;
    'jobs backup start') echo '--manual --hourly --daily --weekly --monthly --wait --wait-timeout --poll-interval --strict --jitter --lock --healthcheck-url' ;;
    'jobs backup list') echo '--status --tags --without-tags --started-since --completed-since --page --page-size --all --sort --fail-if-empty' ;;
    'jobs backup delete') echo '--all' ;;
    'jobs schedule update') echo '--timezone --run-offset --cron --frequency --retention-hourly --retention-daily --retention-weekly --retention-monthly' ;;
    'jobs storage set') echo '--storage' ;;
    'jobs backup latest') echo '--status --max-age' ;;
    'jobs backup download') echo '--latest --dir --force --parallel --file --decrypt-with --private-key --private-key-pass-file' ;;
    'restores list') echo '--status --page --page-size --all --fail-if-empty' ;;
    'encryption-keys create') echo '--name --public-key-file' ;;
    'status') echo '--job --check --strict --max-age --allow-errors --output-file --healthcheck-url --all-profiles --profiles' ;;
    'verify') echo '--latest --since --sample --parallel --strict --check --allow-unchecked --decrypt-with --private-key --private-key-pass-file --skip-catalog --jitter --lock --healthcheck-url --output-file --all-profiles --profiles' ;;
    'restore-test') echo '--latest --into --into-file --engine --assert --exec --keep --allow-empty --run-as --trust-into-user --check --allow-unchecked --decrypt-with --private-key --private-key-pass-file --skip-catalog --jitter --lock --healthcheck-url --output-file' ;;
    'report') echo '--since --until --job --grace --output-file --check --max-missed --min-success --explain --assurance --healthcheck-url --all-profiles --profiles' ;;
    'retention') echo '--droplet --volume --resource --all --simulate --what-if --check --within --audit --now --all-profiles --profiles' ;;
    'scan') echo '--since --rescan --parallel --decrypt-with --private-key --private-key-pass-file' ;;
    'anomalies') echo '--since --check --offline --ack --note --decrypt-with --private-key --private-key-pass-file --jitter --lock --healthcheck-url' ;;
    'ls') echo '--long -l --decrypt-with --private-key --private-key-pass-file' ;;
    'find') echo '--since --long -l --decrypt-with --private-key --private-key-pass-file' ;;
    'diff') echo '--stat --json-lines --decrypt-with --private-key --private-key-pass-file' ;;
    'restore-file') echo '--dir --force --decrypt-with --private-key --private-key-pass-file' ;;
    'export') echo '--file -f --only' ;;
    'plan') echo '--file -f --prune --allow-outside-files' ;;
    'apply') echo '--file -f --prune --allow-outside-files --allow-replace --allow-expiry' ;;
    'state migrate') echo '--to' ;;
    'assure run') echo '--file -f --concurrency --max-time --shard --lease' ;;
    'assure status') echo '--file -f --check --all-profiles --profiles' ;;
    'api') echo '--method -X --raw-field -f --field -F --input --paginate' ;;
    'emulator') echo '--port --token --seed --latency --fault --outcome --big-job --damaged-files --bad-night --archive-faults --retention-jobs --fleet-jobs --changing-files --url-ttl --big-file --dialect --tick --now' ;;
  esac
}

__backupctl_global_flags() {
  echo '--profile --base-url --output -o --json --quiet -q --columns --no-headers --no-trunc --debug --timeout --no-color --yes -y --config-dir --dry-run --jq --help -h'
}

__backupctl_root_flags() {
  echo '--version -v'
}

# What the value of flag $2 of command $1 completes to; nothing when the flag takes no value.
__backupctl_flag_value() {
  case "$1/$2" in
    'auth login/--provider-names') echo 'words neutral published' ;;
    'servers list/--name') echo 'none' ;;
    'servers list/--host') echo 'none' ;;
    'servers list/--modified-since') echo 'none' ;;
    'servers list/--page') echo 'none' ;;
    'servers list/--page-size') echo 'none' ;;
    'servers list/--sort') echo 'words id -id host -host name -name created_at -created_at last_used_at -last_used_at' ;;
    'servers list/--columns') echo 'list id name host port user status key last_used created_at' ;;
    'servers add/--name') echo 'none' ;;
    'servers add/--host') echo 'none' ;;
    'servers add/--port') echo 'none' ;;
    'servers add/--user') echo 'none' ;;
    'servers add/--key') echo 'ids ssh-keys' ;;
    'servers add/--columns') echo 'list id name host port user status key last_used created_at' ;;
    'servers code/--key') echo 'ids ssh-keys' ;;
    'ssh-keys list/--modified-since') echo 'none' ;;
    'ssh-keys list/--page') echo 'none' ;;
    'ssh-keys list/--page-size') echo 'none' ;;
    'ssh-keys list/--sort') echo 'words id -id name -name created_at -created_at updated_at -updated_at last_used_at -last_used_at' ;;
    'ssh-keys list/--columns') echo 'list id name created_at last_used public_key' ;;
    'ssh-keys create/--name') echo 'none' ;;
    'ssh-keys create/--columns') echo 'list id name created_at last_used public_key' ;;
    'snapshots list/--provider') echo 'words cloud_a cloud_b cloud_c cloud_d cloud_e cloud_f cloud_g cloud_h aws aws_lightsail exoscale hetzner gcp upcloud scaleway vultr' ;;
    'snapshots list/--status') echo 'words pre_request in_progress expired failed completed' ;;
    'snapshots list/--tags') echo 'list manual hourly daily weekly monthly' ;;
    'snapshots list/--without-tags') echo 'list manual hourly daily weekly monthly' ;;
    'snapshots list/--started-since') echo 'none' ;;
    'snapshots list/--completed-since') echo 'none' ;;
    'snapshots list/--page') echo 'none' ;;
    'snapshots list/--page-size') echo 'none' ;;
    'snapshots list/--sort') echo 'words id -id name -name size -size started_at -started_at completed_at -completed_at' ;;
    'snapshots list/--columns') echo 'list id name provider status size tags started_at completed_at account resource fail_reason' ;;
    'snapshots get/--columns') echo 'list id name provider status size tags started_at completed_at account resource fail_reason' ;;
    'accounts list/--provider') echo 'words cloud_a cloud_b cloud_c cloud_d cloud_e cloud_f cloud_g cloud_h aws aws_lightsail exoscale hetzner gcp upcloud scaleway vultr' ;;
    'accounts list/--modified-since') echo 'none' ;;
    'accounts list/--page') echo 'none' ;;
    'accounts list/--page-size') echo 'none' ;;
    'accounts list/--sort') echo 'words id -id name -name expires_at -expires_at created_at -created_at updated_at -updated_at' ;;
    'accounts list/--columns') echo 'list id name provider expires_at created_at updated_at' ;;
    'accounts add/--name') echo 'none' ;;
    'accounts add/--provider') echo 'words cloud_a cloud_b cloud_c cloud_d cloud_e cloud_f cloud_g cloud_h aws aws_lightsail exoscale hetzner gcp upcloud scaleway vultr' ;;
    'accounts add/--credentials-file') echo 'files' ;;
    'accounts add/--key') echo 'none' ;;
    'accounts add/--secret') echo 'none' ;;
    'accounts add/--region') echo 'none' ;;
    'accounts add/--zone') echo 'none' ;;
    'accounts add/--username') echo 'none' ;;
    'accounts add/--password') echo 'none' ;;
    'accounts add/--columns') echo 'list id name provider expires_at created_at updated_at' ;;
    'accounts update/--name') echo 'none' ;;
    'accounts update/--provider') echo 'words cloud_a cloud_b cloud_c cloud_d cloud_e cloud_f cloud_g cloud_h aws aws_lightsail exoscale hetzner gcp upcloud scaleway vultr' ;;
    'accounts update/--credentials-file') echo 'files' ;;
    'accounts update/--key') echo 'none' ;;
    'accounts update/--secret') echo 'none' ;;
    'accounts update/--region') echo 'none' ;;
    'accounts update/--zone') echo 'none' ;;
    'accounts update/--username') echo 'none' ;;
    'accounts update/--password') echo 'none' ;;
    'resources list/--provider') echo 'words cloud_a cloud_b cloud_c cloud_d cloud_e cloud_f cloud_g cloud_h aws aws_lightsail exoscale hetzner gcp upcloud scaleway vultr' ;;
    'resources list/--modified-since') echo 'none' ;;
    'resources list/--page') echo 'none' ;;
    'resources list/--page-size') echo 'none' ;;
    'resources list/--sort') echo 'words id -id last_synced_at -last_synced_at' ;;
    'resources list/--columns') echo 'list id type provider account backups_activated last_known_ip last_synced_at' ;;
    'resources get/--columns') echo 'list id type backups_activated last_known_ip last_synced_at' ;;
    'resources activate/--frequency') echo 'none' ;;
    'resources activate/--retention-hourly') echo 'none' ;;
    'resources activate/--retention-daily') echo 'none' ;;
    'resources activate/--retention-weekly') echo 'none' ;;
    'resources activate/--retention-monthly') echo 'none' ;;
    'resources activate/--timezone') echo 'none' ;;
    'resources activate/--run-offset') echo 'none' ;;
    'storage list/--provider') echo 'words cloud_i cloud_a cloud_j cloud_k cloud_l cloud_f cloud_m cloud_g cloud_c custom cloud_b cloud_d cloud_e cloud_h digitalocean aws wasabi b2 filebase upcloud scaleway exoscale aws_lightsail hetzner gcp vultr' ;;
    'storage list/--region') echo 'none' ;;
    'storage list/--modified-since') echo 'none' ;;
    'storage list/--page') echo 'none' ;;
    'storage list/--page-size') echo 'none' ;;
    'storage list/--sort') echo 'words id -id name -name' ;;
    'storage list/--columns') echo 'list id name provider region bucket endpoint estimated_size priority' ;;
    'storage add/--name') echo 'none' ;;
    'storage add/--provider') echo 'words cloud_i cloud_a cloud_j cloud_k cloud_l cloud_f cloud_m cloud_g cloud_c custom digitalocean aws wasabi b2 filebase upcloud scaleway exoscale' ;;
    'storage add/--key') echo 'none' ;;
    'storage add/--secret') echo 'none' ;;
    'storage add/--secret-file') echo 'files' ;;
    'storage add/--bucket') echo 'none' ;;
    'storage add/--endpoint') echo 'none' ;;
    'storage add/--region') echo 'none' ;;
    'storage add/--columns') echo 'list id name provider region bucket endpoint estimated_size priority' ;;
    'storage update/--name') echo 'none' ;;
    'storage update/--key') echo 'none' ;;
    'storage update/--secret') echo 'none' ;;
    'storage update/--secret-file') echo 'files' ;;
    'droplets list/--name') echo 'none' ;;
    'droplets list/--host') echo 'none' ;;
    'droplets list/--status') echo 'words destroyed inactive paused running active' ;;
    'droplets list/--modified-since') echo 'none' ;;
    'droplets list/--page') echo 'none' ;;
    'droplets list/--page-size') echo 'none' ;;
    'droplets list/--sort') echo 'words id -id name -name host -host size -size created_at -created_at' ;;
    'droplets list/--columns') echo 'list id name host status frequency retention timezone size location estimated_cost created_at run_offset secondary_region account' ;;
    'droplets get/--columns') echo 'list id name host status frequency retention timezone size location estimated_cost snapshots created_at run_offset secondary_region account' ;;
    'droplets update/--frequency') echo 'none' ;;
    'droplets update/--retention-hourly') echo 'none' ;;
    'droplets update/--retention-daily') echo 'none' ;;
    'droplets update/--retention-weekly') echo 'none' ;;
    'droplets update/--retention-monthly') echo 'none' ;;
    'droplets update/--timezone') echo 'none' ;;
    'droplets update/--run-offset') echo 'none' ;;
    'droplets update/--secondary-region') echo 'none' ;;
    'droplets activate/--frequency') echo 'none' ;;
    'droplets activate/--retention-hourly') echo 'none' ;;
    'droplets activate/--retention-daily') echo 'none' ;;
    'droplets activate/--retention-weekly') echo 'none' ;;
    'droplets activate/--retention-monthly') echo 'none' ;;
    'droplets activate/--timezone') echo 'none' ;;
    'droplets activate/--run-offset') echo 'none' ;;
    'droplets activate/--secondary-region') echo 'none' ;;
    'droplets snapshot list/--status') echo 'words failed in-progress completed transferring expired' ;;
    'droplets snapshot list/--tags') echo 'list manual hourly daily weekly monthly' ;;
    'droplets snapshot list/--without-tags') echo 'list manual hourly daily weekly monthly' ;;
    'droplets snapshot list/--started-since') echo 'none' ;;
    'droplets snapshot list/--completed-since') echo 'none' ;;
    'droplets snapshot list/--page') echo 'none' ;;
    'droplets snapshot list/--page-size') echo 'none' ;;
    'droplets snapshot list/--sort') echo 'words id -id name -name size -size started_at -started_at completed_at -completed_at' ;;
    'droplets snapshot list/--columns') echo 'list id name status size tags started_at completed_at' ;;
    'volumes list/--name') echo 'none' ;;
    'volumes list/--status') echo 'words destroyed inactive paused running active' ;;
    'volumes list/--modified-since') echo 'none' ;;
    'volumes list/--page') echo 'none' ;;
    'volumes list/--page-size') echo 'none' ;;
    'volumes list/--sort') echo 'words id -id name -name size -size created_at -created_at' ;;
    'volumes list/--columns') echo 'list id name status frequency retention timezone size location estimated_cost created_at run_offset account' ;;
    'volumes get/--columns') echo 'list id name status frequency retention timezone size location estimated_cost snapshots created_at run_offset account' ;;
    'volumes update/--frequency') echo 'none' ;;
    'volumes update/--retention-hourly') echo 'none' ;;
    'volumes update/--retention-daily') echo 'none' ;;
    'volumes update/--retention-weekly') echo 'none' ;;
    'volumes update/--retention-monthly') echo 'none' ;;
    'volumes update/--timezone') echo 'none' ;;
    'volumes update/--run-offset') echo 'none' ;;
    'volumes activate/--frequency') echo 'none' ;;
    'volumes activate/--retention-hourly') echo 'none' ;;
    'volumes activate/--retention-daily') echo 'none' ;;
    'volumes activate/--retention-weekly') echo 'none' ;;
    'volumes activate/--retention-monthly') echo 'none' ;;
    'volumes activate/--timezone') echo 'none' ;;
    'volumes activate/--run-offset') echo 'none' ;;
    'volumes snapshot list/--status') echo 'words failed in-progress completed transferring expired' ;;
    'volumes snapshot list/--tags') echo 'list manual hourly daily weekly monthly' ;;
    'volumes snapshot list/--without-tags') echo 'list manual hourly daily weekly monthly' ;;
    'volumes snapshot list/--started-since') echo 'none' ;;
    'volumes snapshot list/--completed-since') echo 'none' ;;
    'volumes snapshot list/--page') echo 'none' ;;
    'volumes snapshot list/--page-size') echo 'none' ;;
    'volumes snapshot list/--sort') echo 'words id -id name -name size -size started_at -started_at completed_at -completed_at' ;;
    'volumes snapshot list/--columns') echo 'list id name status size tags started_at completed_at' ;;
    'jobs list/--host') echo 'none' ;;
    'jobs list/--modified-since') echo 'none' ;;
    'jobs list/--page') echo 'none' ;;
    'jobs list/--page-size') echo 'none' ;;
    'jobs list/--sort') echo 'words id -id name -name last_ran_at -last_ran_at created_at -created_at updated_at -updated_at' ;;
    'jobs list/--columns') echo 'list id name recipe compute schedule storage last_ran_at created_at' ;;
    'jobs get/--columns') echo 'list id name recipe compute schedule storage last_ran_at created_at' ;;
    'jobs create/--file') echo 'files' ;;
    'jobs create/--name') echo 'none' ;;
    'jobs create/--recipe-id') echo 'none' ;;
    'jobs create/--server') echo 'ids servers' ;;
    'jobs create/--serverless') echo 'words EU US' ;;
    'jobs create/--config') echo 'none' ;;
    'jobs create/--storage') echo 'ids storage' ;;
    'jobs create/--cron') echo 'none' ;;
    'jobs create/--frequency') echo 'words h24 h12 h6 h4 h3 h2 h1 m30 m20 m15 m10 m6 m5' ;;
    'jobs create/--run-offset') echo 'none' ;;
    'jobs create/--timezone') echo 'none' ;;
    'jobs create/--retention-hourly') echo 'none' ;;
    'jobs create/--retention-daily') echo 'none' ;;
    'jobs create/--retention-weekly') echo 'none' ;;
    'jobs create/--retention-monthly') echo 'none' ;;
    'jobs create/--encryption-key') echo 'none' ;;
    'jobs create/--proxy') echo 'none' ;;
    'jobs create/--columns') echo 'list id name recipe compute schedule storage last_ran_at created_at' ;;
    'jobs update/--file') echo 'files' ;;
    'jobs update/--storage') echo 'ids storage' ;;
    'jobs backup start/--wait-timeout') echo 'none' ;;
    'jobs backup start/--poll-interval') echo 'none' ;;
    'jobs backup start/--jitter') echo 'none' ;;
    'jobs backup start/--lock') echo 'none' ;;
    'jobs backup start/--healthcheck-url') echo 'none' ;;
    'jobs backup list/--status') echo 'words pending running expired failed completed completed_with_errors' ;;
    'jobs backup list/--tags') echo 'list manual hourly daily weekly monthly' ;;
    'jobs backup list/--without-tags') echo 'list manual hourly daily weekly monthly' ;;
    'jobs backup list/--started-since') echo 'none' ;;
    'jobs backup list/--completed-since') echo 'none' ;;
    'jobs backup list/--page') echo 'none' ;;
    'jobs backup list/--page-size') echo 'none' ;;
    'jobs backup list/--sort') echo 'words id -id name -name created_at -created_at started_at -started_at completed_at -completed_at' ;;
    'jobs backup list/--columns') echo 'list id status tags created_at started_at completed_at files' ;;
    'jobs backup get/--columns') echo 'list id status tags created_at started_at completed_at files' ;;
    'jobs schedule update/--timezone') echo 'none' ;;
    'jobs schedule update/--run-offset') echo 'none' ;;
    'jobs schedule update/--cron') echo 'none' ;;
    'jobs schedule update/--frequency') echo 'words h24 h12 h6 h4 h3 h2 h1 m30 m20 m15 m10 m6 m5' ;;
    'jobs schedule update/--retention-hourly') echo 'none' ;;
    'jobs schedule update/--retention-daily') echo 'none' ;;
    'jobs schedule update/--retention-weekly') echo 'none' ;;
    'jobs schedule update/--retention-monthly') echo 'none' ;;
    'jobs storage set/--storage') echo 'ids storage' ;;
    'jobs backup latest/--status') echo 'words pending running expired failed completed completed_with_errors' ;;
    'jobs backup latest/--max-age') echo 'none' ;;
    'jobs backup latest/--columns') echo 'list id status tags created_at started_at completed_at files' ;;
    'jobs backup download/--dir') echo 'none' ;;
    'jobs backup download/--parallel') echo 'none' ;;
    'jobs backup download/--file') echo 'none' ;;
    'jobs backup download/--decrypt-with') echo 'none' ;;
    'jobs backup download/--private-key') echo 'none' ;;
    'jobs backup download/--private-key-pass-file') echo 'none' ;;
    'jobs backup download/--output'|'jobs backup download/-o') echo 'words table json ndjson tsv -' ;;
    'jobs backup download/--columns') echo 'list name bytes path resumed' ;;
    'restores list/--status') echo 'words pending running failed completed' ;;
    'restores list/--page') echo 'none' ;;
    'restores list/--page-size') echo 'none' ;;
    'restores list/--columns') echo 'list id job_id backup_id status compute created_at completed_at' ;;
    'restores get/--columns') echo 'list id job_id backup_id status compute created_at completed_at' ;;
    'encryption-keys create/--name') echo 'none' ;;
    'encryption-keys create/--public-key-file') echo 'files' ;;
    'encryption-keys create/--columns') echo 'list id name fingerprint created_at public_key' ;;
    'backups get/--columns') echo 'list id status tags created_at started_at completed_at files' ;;
    'backups urls/--columns') echo 'list name url' ;;
    'status/--job') echo 'ids jobs' ;;
    'status/--max-age') echo 'none' ;;
    'status/--output-file') echo 'none' ;;
    'status/--healthcheck-url') echo 'none' ;;
    'status/--profiles') echo 'none' ;;
    'status/--output'|'status/-o') echo 'words table json ndjson tsv prometheus' ;;
    'verify/--since') echo 'none' ;;
    'verify/--sample') echo 'none' ;;
    'verify/--parallel') echo 'none' ;;
    'verify/--decrypt-with') echo 'none' ;;
    'verify/--private-key') echo 'none' ;;
    'verify/--private-key-pass-file') echo 'none' ;;
    'verify/--jitter') echo 'none' ;;
    'verify/--lock') echo 'none' ;;
    'verify/--healthcheck-url') echo 'none' ;;
    'verify/--output-file') echo 'none' ;;
    'verify/--profiles') echo 'none' ;;
    'verify/--output'|'verify/-o') echo 'words table json ndjson tsv prometheus' ;;
    'restore-test/--into') echo 'none' ;;
    'restore-test/--into-file') echo 'none' ;;
    'restore-test/--engine') echo 'words auto server local embedded' ;;
    'restore-test/--assert') echo 'none' ;;
    'restore-test/--exec') echo 'none' ;;
    'restore-test/--run-as') echo 'none' ;;
    'restore-test/--decrypt-with') echo 'none' ;;
    'restore-test/--private-key') echo 'none' ;;
    'restore-test/--private-key-pass-file') echo 'none' ;;
    'restore-test/--jitter') echo 'none' ;;
    'restore-test/--lock') echo 'none' ;;
    'restore-test/--healthcheck-url') echo 'none' ;;
    'restore-test/--output-file') echo 'none' ;;
    'restore-test/--output'|'restore-test/-o') echo 'words table json ndjson tsv md prometheus' ;;
    'report/--since') echo 'none' ;;
    'report/--until') echo 'none' ;;
    'report/--job') echo 'none' ;;
    'report/--grace') echo 'none' ;;
    'report/--output-file') echo 'none' ;;
    'report/--max-missed') echo 'none' ;;
    'report/--min-success') echo 'none' ;;
    'report/--assurance') echo 'none' ;;
    'report/--healthcheck-url') echo 'none' ;;
    'report/--profiles') echo 'none' ;;
    'report/--output'|'report/-o') echo 'words table json ndjson tsv md html' ;;
    'retention/--droplet') echo 'ids droplets' ;;
    'retention/--volume') echo 'ids volumes' ;;
    'retention/--resource') echo 'none' ;;
    'retention/--simulate') echo 'none' ;;
    'retention/--what-if') echo 'none' ;;
    'retention/--within') echo 'none' ;;
    'retention/--now') echo 'none' ;;
    'retention/--profiles') echo 'none' ;;
    'retention/--output'|'retention/-o') echo 'words table json ndjson tsv md' ;;
    'scan/--since') echo 'none' ;;
    'scan/--parallel') echo 'none' ;;
    'scan/--decrypt-with') echo 'none' ;;
    'scan/--private-key') echo 'none' ;;
    'scan/--private-key-pass-file') echo 'none' ;;
    'anomalies/--since') echo 'none' ;;
    'anomalies/--ack') echo 'ids backups' ;;
    'anomalies/--note') echo 'none' ;;
    'anomalies/--decrypt-with') echo 'none' ;;
    'anomalies/--private-key') echo 'none' ;;
    'anomalies/--private-key-pass-file') echo 'none' ;;
    'anomalies/--jitter') echo 'none' ;;
    'anomalies/--lock') echo 'none' ;;
    'anomalies/--healthcheck-url') echo 'none' ;;
    'anomalies/--output'|'anomalies/-o') echo 'words table json ndjson tsv prometheus' ;;
    'ls/--decrypt-with') echo 'none' ;;
    'ls/--private-key') echo 'none' ;;
    'ls/--private-key-pass-file') echo 'none' ;;
    'find/--since') echo 'none' ;;
    'find/--decrypt-with') echo 'none' ;;
    'find/--private-key') echo 'none' ;;
    'find/--private-key-pass-file') echo 'none' ;;
    'diff/--decrypt-with') echo 'none' ;;
    'diff/--private-key') echo 'none' ;;
    'diff/--private-key-pass-file') echo 'none' ;;
    'restore-file/--dir') echo 'none' ;;
    'restore-file/--decrypt-with') echo 'none' ;;
    'restore-file/--private-key') echo 'none' ;;
    'restore-file/--private-key-pass-file') echo 'none' ;;
    'restore-file/--output'|'restore-file/-o') echo 'words table json ndjson tsv -' ;;
    'export/--file'|'export/-f') echo 'none' ;;
    'export/--only') echo 'none' ;;
    'plan/--file'|'plan/-f') echo 'none' ;;
    'apply/--file'|'apply/-f') echo 'none' ;;
    'state migrate/--to') echo 'none' ;;
    'assure run/--file'|'assure run/-f') echo 'none' ;;
    'assure run/--concurrency') echo 'none' ;;
    'assure run/--max-time') echo 'none' ;;
    'assure run/--shard') echo 'none' ;;
    'assure run/--lease') echo 'none' ;;
    'assure status/--file'|'assure status/-f') echo 'none' ;;
    'assure status/--profiles') echo 'none' ;;
    'assure status/--output'|'assure status/-o') echo 'words table json ndjson tsv prometheus' ;;
    'assure status/--columns') echo 'list job kind window state at rto_met' ;;
    'api/--method'|'api/-X') echo 'words GET POST PUT PATCH DELETE' ;;
    'api/--raw-field'|'api/-f') echo 'none' ;;
    'api/--field'|'api/-F') echo 'none' ;;
    'api/--input') echo 'files' ;;
    'emulator/--port') echo 'none' ;;
    'emulator/--token') echo 'none' ;;
    'emulator/--seed') echo 'words demo empty' ;;
    'emulator/--latency') echo 'none' ;;
    'emulator/--fault') echo 'none' ;;
    'emulator/--outcome') echo 'words completed failed completed_with_errors' ;;
    'emulator/--big-job') echo 'none' ;;
    'emulator/--fleet-jobs') echo 'none' ;;
    'emulator/--url-ttl') echo 'none' ;;
    'emulator/--big-file') echo 'none' ;;
    'emulator/--dialect') echo 'words neutral published' ;;
    'emulator/--tick') echo 'none' ;;
    'emulator/--now') echo 'none' ;;
    */--profile) echo 'ids profiles' ;;
    */--base-url) echo 'none' ;;
    */--output|*/-o) echo 'words table json ndjson tsv' ;;
    */--columns) echo 'none' ;;
    */--timeout) echo 'none' ;;
    */--config-dir) echo 'dirs' ;;
    */--jq) echo 'none' ;;
  esac
}

# What positional argument $2 (from 0) of command $1 completes to.
__backupctl_positional() {
  case "$1/$2" in
    'profiles use/0') echo 'ids profiles' ;;
    'profiles remove/0') echo 'ids profiles' ;;
    'ssh-keys rename/0') echo 'ids ssh-keys' ;;
    'ssh-keys delete/0') echo 'ids ssh-keys' ;;
    'snapshots get/0') echo 'ids snapshots' ;;
    'snapshots delete/0') echo 'ids snapshots' ;;
    'accounts update/0') echo 'ids accounts' ;;
    'accounts delete/0') echo 'ids accounts' ;;
    'accounts sync/0') echo 'ids accounts' ;;
    'resources get/0') echo 'ids resources' ;;
    'resources activate/0') echo 'ids resources' ;;
    'resources deactivate/0') echo 'ids resources' ;;
    'resources clear/0') echo 'ids resources' ;;
    'storage update/0') echo 'ids storage' ;;
    'storage delete/0') echo 'ids storage' ;;
    'droplets get/0') echo 'ids droplets' ;;
    'droplets update/0') echo 'ids droplets' ;;
    'droplets activate/0') echo 'ids droplets' ;;
    'droplets pause/0') echo 'ids droplets' ;;
    'droplets resume/0') echo 'ids droplets' ;;
    'droplets deactivate/0') echo 'ids droplets' ;;
    'droplets snapshot list/0') echo 'ids droplets' ;;
    'droplets snapshot create/0') echo 'ids droplets' ;;
    'droplets snapshot delete/0') echo 'ids droplets' ;;
    'droplets snapshot delete/1') echo 'ids droplets-snapshots' ;;
    'volumes get/0') echo 'ids volumes' ;;
    'volumes update/0') echo 'ids volumes' ;;
    'volumes activate/0') echo 'ids volumes' ;;
    'volumes pause/0') echo 'ids volumes' ;;
    'volumes resume/0') echo 'ids volumes' ;;
    'volumes deactivate/0') echo 'ids volumes' ;;
    'volumes snapshot list/0') echo 'ids volumes' ;;
    'volumes snapshot create/0') echo 'ids volumes' ;;
    'volumes snapshot delete/0') echo 'ids volumes' ;;
    'volumes snapshot delete/1') echo 'ids volumes-snapshots' ;;
    'jobs get/0') echo 'ids jobs' ;;
    'jobs update/0') echo 'ids jobs' ;;
    'jobs delete/0') echo 'ids jobs' ;;
    'jobs backup start/0') echo 'ids jobs' ;;
    'jobs backup list/0') echo 'ids jobs' ;;
    'jobs backup get/0') echo 'ids jobs' ;;
    'jobs backup get/1') echo 'ids backups' ;;
    'jobs backup delete/0') echo 'ids jobs' ;;
    'jobs backup delete/1') echo 'ids backups' ;;
    'jobs encryption-key set/0') echo 'ids jobs' ;;
    'jobs encryption-key remove/0') echo 'ids jobs' ;;
    'jobs proxy set/0') echo 'ids jobs' ;;
    'jobs proxy remove/0') echo 'ids jobs' ;;
    'jobs schedule update/0') echo 'ids jobs' ;;
    'jobs storage set/0') echo 'ids jobs' ;;
    'jobs backup latest/0') echo 'ids jobs' ;;
    'jobs backup download/0') echo 'ids jobs' ;;
    'jobs backup download/1') echo 'ids backups' ;;
    'restores get/0') echo 'ids restores' ;;
    'backups get/0') echo 'ids backups' ;;
    'backups delete/0') echo 'ids backups' ;;
    'backups urls/0') echo 'ids backups' ;;
    'verify/0') echo 'ids jobs' ;;
    'verify/1') echo 'ids backups' ;;
    'restore-test/0') echo 'ids jobs' ;;
    'restore-test/1') echo 'ids backups' ;;
    'retention/0') echo 'ids jobs' ;;
    'scan/0') echo 'ids jobs' ;;
    'anomalies/0') echo 'ids jobs' ;;
    'ls/0') echo 'ids jobs' ;;
    'ls/1') echo 'ids backups' ;;
    'find/0') echo 'ids jobs' ;;
    'diff/0') echo 'ids jobs' ;;
    'diff/1') echo 'ids backups' ;;
    'diff/2') echo 'ids backups' ;;
    'restore-file/0') echo 'ids jobs' ;;
    'restore-file/1') echo 'ids backups' ;;
    'schema/0') echo 'ids commands' ;;
    'schema/1') echo 'ids commands' ;;
    'schema/2') echo 'ids commands' ;;
    'completion/0') echo 'words bash zsh fish' ;;
    'help/0') echo 'words exit-codes environment cron kinds auth profiles config doctor servers ssh-keys snapshots accounts resources storage droplets volumes jobs restores encryption-keys backups status verify restore-test report retention scan anomalies ls find diff restore-file export plan apply state assure api schema completion emulator version' ;;
  esac
}

# Adds the candidates of value spec $1 that match $cur to COMPREPLY.
__backupctl_reply() {
  local -a values=()
  local w pre="" last="$cur"
  read -r -a values <<<"${1#* }"
  case "${1%% *}" in
    words)
      for w in "${values[@]}"; do [[ $w == "$cur"* ]] && COMPREPLY+=("$w"); done ;;
    list)
      if [[ $cur == *,* ]]; then pre="${cur%,*},"; last="${cur##*,}"; fi
      for w in "${values[@]}"; do
        [[ $w == "$last"* && ",$pre" != *",$w,"* ]] && COMPREPLY+=("$pre$w")
      done
      compopt -o nospace 2>/dev/null ;;
    files)
      compopt -o filenames 2>/dev/null
      while IFS= read -r w; do COMPREPLY+=("$w"); done < <(compgen -f -- "$cur") ;;
    dirs)
      compopt -o filenames 2>/dev/null
      while IFS= read -r w; do COMPREPLY+=("$w"); done < <(compgen -d -- "$cur") ;;
    ids)
      if [[ " jobs servers ssh-keys storage accounts droplets volumes " == *" ${values[0]} "* ]]; then
        __backupctl_names "${values[0]}"
      else
        while IFS=$'\t' read -r w _; do
          [[ -n $w && $w == "$cur"* ]] && COMPREPLY+=("$w")
        done < <("${COMP_WORDS[0]}" "${extra[@]}" __complete ids "${values[0]}" "${args[@]:0:2}" 2>/dev/null)
      fi ;;
  esac
}

# Adds to COMPREPLY the names of resource $1 that start with what is typed (in quotes, with
# backslashes or bare), quoted when they hold a space or another character the shell reads;
# the id of a record with no name, or whose id starts with what is typed.
__backupctl_names() {
  local w id q="" typed
  case "$cur" in
    \"*) q='"'; typed="${cur#\"}" ;;
    \'*) q="'"; typed="${cur#\'}" ;;
    *) typed="${cur//\\/}" ;;
  esac
  while IFS=$'\t' read -r w id; do
    [[ -z $w ]] && continue
    if [[ -z $id ]]; then
      [[ $w == "$typed"* ]] && COMPREPLY+=("$w")
    elif [[ $w == "$typed"* ]]; then
      if [[ -n $q ]]; then
        COMPREPLY+=("$q$w$q")
      elif [[ $w == *[^A-Za-z0-9._:@%+=,/-]* && $w != *"'"* ]]; then
        COMPREPLY+=("'$w'")
      else
        printf -v w '%q' "$w"
        COMPREPLY+=("$w")
      fi
    elif [[ -n $typed && $id == "$typed"* ]]; then
      COMPREPLY+=("$id")
    fi
  done < <("${COMP_WORDS[0]}" "${extra[@]}" __complete names "$1" "${args[@]:0:2}" 2>/dev/null)
}

_backupctl() {
  local cur="${COMP_WORDS[COMP_CWORD]}" prev="" node="" npos=0 i w next spec
  # --profile, --base-url and --config-dir given on the line pick the service the ids come from;
  # the arguments before the one completed narrow them (the job of a backup, schema's words).
  local -a extra=() args=()
  COMPREPLY=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="${COMP_WORDS[i]}"
    case "$w" in
      -*=*) ;;
      -?*)
        spec="$(__backupctl_flag_value "$node" "$w")"
        if [[ -n $spec ]] && ((i + 1 < COMP_CWORD)); then
          i=$((i + 1))
          # bash splits --flag=value at the = (COMP_WORDBREAKS).
          if [[ ${COMP_WORDS[i]} == "=" ]] && ((i + 1 < COMP_CWORD)); then i=$((i + 1)); fi
          case "$w" in --profile | --base-url | --config-dir) extra+=("$w" "${COMP_WORDS[i]}") ;; esac
        fi ;;
      *)
        next="$(__backupctl_command "$node" "$w")"
        if [[ -n $next && $npos -eq 0 ]]; then node="$next"; else npos=$((npos + 1)); args+=("$w"); fi ;;
    esac
  done
  if ((COMP_CWORD > 1)); then prev="${COMP_WORDS[COMP_CWORD - 1]}"; fi
  if [[ $cur == "=" ]]; then
    cur=""
  elif [[ $prev == "=" ]] && ((COMP_CWORD > 2)); then
    prev="${COMP_WORDS[COMP_CWORD - 2]}"
  fi
  if [[ $prev == -?* && $prev != *=* ]]; then
    spec="$(__backupctl_flag_value "$node" "$prev")"
    if [[ -n $spec ]]; then
      __backupctl_reply "$spec"
      return 0
    fi
  fi
  if [[ $cur == -* ]]; then
    spec="words $(__backupctl_flags "$node") $(__backupctl_global_flags)"
    if [[ -z $node ]]; then spec="$spec $(__backupctl_root_flags)"; fi
    __backupctl_reply "$spec"
    return 0
  fi
  if ((npos == 0)); then
    spec="$(__backupctl_subcommands "$node")"
    if [[ -n $spec ]]; then __backupctl_reply "words $spec"; fi
  fi
  spec="$(__backupctl_positional "$node" "$npos")"
  if [[ -n $spec ]]; then __backupctl_reply "$spec"; fi
  return 0
}

complete -F _backupctl backupctl
