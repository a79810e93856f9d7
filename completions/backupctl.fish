# fish completion for backupctl
# Generated from the command registry by `npm run docs` (the same as `backupctl completion fish`); do not edit.
#
# Every shell:  backupctl completion fish > ~/.config/fish/completions/backupctl.fish
# This shell:   backupctl completion fish | source
# Ids of jobs and servers come from the service (backupctl __complete ids jobs), cached for a minute.

# The command that word $argv[2] names below command $argv[1] ('' is the top), or nothing.
function __backupctl_command
    switch "$argv[1]/$argv[2]"
        case '/auth'
            echo 'auth'
        case '/profiles'
            echo 'profiles'
        case '/config'
            echo 'config'
        case '/servers'
            echo 'servers'
        case '/ssh-keys'
            echo 'ssh-keys'
        case '/api'
            echo 'api'
        case '/schema'
            echo 'schema'
        case '/completion'
            echo 'completion'
        case '/emulator'
            echo 'emulator'
        case '/help'
            echo 'help'
        case 'auth/login'
            echo 'auth login'
        case 'auth/status'
            echo 'auth status'
        case 'auth/logout'
            echo 'auth logout'
        case 'auth/token'
            echo 'auth token'
        case 'profiles/list'
            echo 'profiles list'
        case 'profiles/use'
            echo 'profiles use'
        case 'profiles/remove'
            echo 'profiles remove'
        case 'config/get'
            echo 'config get'
        case 'config/set'
            echo 'config set'
        case 'config/list'
            echo 'config list'
        case 'config/path'
            echo 'config path'
        case 'servers/list'
            echo 'servers list'
        case 'servers/add'
            echo 'servers add'
        case 'servers/code'
            echo 'servers code'
        case 'ssh-keys/list'
            echo 'ssh-keys list'
        case 'ssh-keys/create'
            echo 'ssh-keys create'
        case 'ssh-keys/rename'
            echo 'ssh-keys rename'
        case 'ssh-keys/delete'
            echo 'ssh-keys delete'
    end
end

# The subcommands of command $argv[1].
function __backupctl_subcommands
    switch "$argv[1]"
        case ''
            printf '%s\t%s\n' 'auth' 'Log in, show the login, log out' 'profiles' 'List, switch and remove profiles' 'config' 'Read and change settings of a profile' 'servers' 'Servers reached over SSH' 'ssh-keys' 'RSA keys the service uses to reach servers' 'api' 'Send any request to the service and print the answer as JSON' 'schema' 'Print the JSON Schema of a command\'s --json output' 'completion' 'Print the shell completion script for bash, zsh or fish' 'emulator' 'Run a local emulator of the backup service (for trying the CLI and for tests)' 'help' 'Show help for a command, or a topic: exit-codes, environment, cron'
        case 'auth'
            printf '%s\t%s\n' 'login' 'Save an API token for a profile, after checking it with the service' 'status' 'Show the profile, base URL and token in use (token masked)' 'logout' 'Remove the profile\'s stored token' 'token' 'Print the token in use (for scripts)'
        case 'profiles'
            printf '%s\t%s\n' 'list' 'List the profiles in the config file' 'use' 'Make a profile the current one' 'remove' 'Remove a profile and its stored token'
        case 'config'
            printf '%s\t%s\n' 'get' 'Print one setting of the profile' 'set' 'Change one setting of the profile' 'list' 'Show the profile\'s settings (token masked)' 'path' 'Print the path of the config file'
        case 'servers'
            printf '%s\t%s\n' 'list' 'List servers' 'add' 'Connect a server over SSH' 'code' 'Print the shell line that installs an SSH key on a server'
        case 'ssh-keys'
            printf '%s\t%s\n' 'list' 'List SSH keys' 'create' 'Create a 4096-bit RSA key pair on the service' 'rename' 'Rename an SSH key' 'delete' 'Delete an SSH key'
    end
end

# The flags of command $argv[1], without the global ones.
function __backupctl_flags
    switch "$argv[1]"
        case 'auth login'
            printf '%s\t%s\n' '--with-token' 'Read the token from standard input instead of prompting'
        case 'servers list'
            printf '%s\t%s\n' '--name' 'Only servers whose name is like this' '--host' 'Only servers with this host' '--modified-since' 'Only records changed since (ISO 8601 or an age: 24h, 7d)' '--page' 'Page number (1-based)' '--page-size' 'Records per page, 15..100' '--all' 'Follow every page and stream all records' '--sort' 'Sort by one field; prefix - for descending' '--fail-if-empty' 'Exit 9 when nothing matched'
        case 'servers add'
            printf '%s\t%s\n' '--name' 'Name of the server' '--host' 'Address of the server' '--port' 'SSH port' '--user' 'SSH user' '--key' 'Id of the SSH key the service logs in with'
        case 'servers code'
            printf '%s\t%s\n' '--key' 'Id of the SSH key to install'
        case 'ssh-keys list'
            printf '%s\t%s\n' '--modified-since' 'Only records changed since (ISO 8601 or an age: 24h, 7d)' '--page' 'Page number (1-based)' '--page-size' 'Records per page, 15..100' '--all' 'Follow every page and stream all records' '--sort' 'Sort by one field; prefix - for descending' '--fail-if-empty' 'Exit 9 when nothing matched'
        case 'ssh-keys create'
            printf '%s\t%s\n' '--name' 'Name of the key'
        case 'api'
            printf '%s\t%s\n' '--method' 'HTTP method (default GET, or POST when fields or --input are given)' '-X' 'HTTP method (default GET, or POST when fields or --input are given)' '--raw-field' 'Add a string field; key[sub]=value nests, key[]=value appends' '-f' 'Add a string field; key[sub]=value nests, key[]=value appends' '--field' 'Add a typed field: true, false, null and numbers are sent as such; @file reads a file, @- stdin' '-F' 'Add a typed field: true, false, null and numbers are sent as such; @file reads a file, @- stdin' '--input' 'Send this file (or - for standard input) as the JSON body; fields then go in the query string' '--paginate' 'Follow every page of a list and print one JSON array of the records (ndjson with -o ndjson)'
        case 'emulator'
            printf '%s\t%s\n' '--port' 'Port of the API; 0 picks a free one' '--token' 'Bearer token the emulator accepts (its own, not your API token); random when absent' '--seed' 'Starting data: a realistic team, or only the first SSH key' '--latency' 'Delay before every answer, in milliseconds' '--fault' 'Inject a fault: KIND[:count=N][:rate=R][:method=M][:path=P][:retryAfter=S], KIND one of 429, 500, 502-html, 503, reset, timeout, truncated, not-json, slow-body' '--outcome' 'How started backups end (default completed; jobs named with "fail" always fail)' '--big-job' 'Add a job "bulk" holding this many backups' '--tick' 'Time per step of a started backup, in milliseconds'
    end
end

function __backupctl_global_flags
    printf '%s\t%s\n' '--profile' 'config profile to use (env BACKUPCTL_PROFILE)' '--base-url' 'service address, e.g. https://api.example.com (env BACKUPCTL_BASE_URL)' '--output' 'table, json, ndjson or tsv (env BACKUPCTL_OUTPUT)' '-o' 'table, json, ndjson or tsv (env BACKUPCTL_OUTPUT)' '--json' 'same as -o json' '--quiet' 'print only ids, one per line' '-q' 'print only ids, one per line' '--columns' 'table columns to show, comma-separated' '--no-headers' 'omit the header row' '--debug' 'HTTP trace on stderr, secrets redacted (env BACKUPCTL_DEBUG=1)' '--timeout' 'per-request timeout, e.g. 30s (env BACKUPCTL_TIMEOUT)' '--no-color' 'no colour (also NO_COLOR)' '--yes' 'do not ask for confirmation' '-y' 'do not ask for confirmation' '--config-dir' 'where profiles live (env BACKUPCTL_CONFIG_DIR)' '--dry-run' 'print the request as a curl command line and send nothing' '--help' 'show help for the command' '-h' 'show help for the command'
end

function __backupctl_root_flags
    printf '%s\t%s\n' '--version' 'Print the version' '-v' 'Print the version'
end

# What the value of flag $argv[2] of command $argv[1] completes to; nothing when the flag takes no value.
function __backupctl_flag_value
    switch "$argv[1]/$argv[2]"
        case 'servers list/--name'
            echo 'none'
        case 'servers list/--host'
            echo 'none'
        case 'servers list/--modified-since'
            echo 'none'
        case 'servers list/--page'
            echo 'none'
        case 'servers list/--page-size'
            echo 'none'
        case 'servers list/--sort'
            echo 'words id -id host -host name -name created_at -created_at last_used_at -last_used_at'
        case 'servers add/--name'
            echo 'none'
        case 'servers add/--host'
            echo 'none'
        case 'servers add/--port'
            echo 'none'
        case 'servers add/--user'
            echo 'none'
        case 'servers add/--key'
            echo 'none'
        case 'servers code/--key'
            echo 'none'
        case 'ssh-keys list/--modified-since'
            echo 'none'
        case 'ssh-keys list/--page'
            echo 'none'
        case 'ssh-keys list/--page-size'
            echo 'none'
        case 'ssh-keys list/--sort'
            echo 'words id -id name -name created_at -created_at updated_at -updated_at last_used_at -last_used_at'
        case 'ssh-keys create/--name'
            echo 'none'
        case 'api/--method' 'api/-X'
            echo 'words GET POST PUT PATCH DELETE'
        case 'api/--raw-field' 'api/-f'
            echo 'none'
        case 'api/--field' 'api/-F'
            echo 'none'
        case 'api/--input'
            echo 'files'
        case 'emulator/--port'
            echo 'none'
        case 'emulator/--token'
            echo 'none'
        case 'emulator/--seed'
            echo 'words demo empty'
        case 'emulator/--latency'
            echo 'none'
        case 'emulator/--fault'
            echo 'none'
        case 'emulator/--outcome'
            echo 'words completed failed completed_with_errors'
        case 'emulator/--big-job'
            echo 'none'
        case 'emulator/--tick'
            echo 'none'
        case '*/--profile'
            echo 'none'
        case '*/--base-url'
            echo 'none'
        case '*/--output' '*/-o'
            echo 'words table json ndjson tsv'
        case '*/--columns'
            echo 'none'
        case '*/--timeout'
            echo 'none'
        case '*/--config-dir'
            echo 'dirs'
    end
end

# What positional argument $argv[2] (from 0) of command $argv[1] completes to.
function __backupctl_positional
    switch "$argv[1]/$argv[2]"
        case 'config get/0'
            echo 'words base_url output timeout token'
        case 'config set/0'
            echo 'words base_url output timeout token'
        case 'completion/0'
            echo 'words bash zsh fish'
        case 'help/0'
            echo 'words exit-codes environment cron auth profiles config servers ssh-keys api schema completion emulator'
    end
end

# Prints the candidates of value spec $argv[1], each after the prefix $argv[2]
# (--flag= when completing --flag=value); $argv[3..] runs backupctl for ids.
function __backupctl_values
    set -l parts (string split ' ' -- $argv[1])
    set -l prefix $argv[2]
    set -l value (string sub -s (math (string length -- "$prefix") + 1) -- (commandline -ct))
    switch $parts[1]
        case words
            for w in $parts[2..-1]
                printf '%s%s\n' $prefix $w
            end
        case list
            set -l done (string match -r '^.*,' -- $value)
            for w in $parts[2..-1]
                if not contains -- $w (string split , -- "$done")
                    printf '%s%s%s\n' $prefix "$done" $w
                end
            end
        case files
            for p in (__fish_complete_path $value)
                printf '%s%s\n' $prefix $p
            end
        case dirs
            for p in (__fish_complete_directories $value)
                printf '%s%s\n' $prefix $p
            end
        case ids
            for line in (command $argv[3..-1] __complete ids $parts[2] 2>/dev/null)
                printf '%s%s\n' $prefix $line
            end
    end
end

function __backupctl_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l n (count $tokens)
    set -l node ''
    set -l npos 0
    # --profile, --base-url and --config-dir given on the line pick the service the ids come from.
    set -l run $tokens[1]
    set -l i 2
    while test $i -le $n
        set -l w $tokens[$i]
        switch $w
            case '-*=*'
            case '-?*'
                set -l spec (__backupctl_flag_value "$node" $w)
                if test -n "$spec"; and test $i -lt $n
                    set i (math $i + 1)
                    if contains -- $w --profile --base-url --config-dir
                        set -a run $w $tokens[$i]
                    end
                end
            case '*'
                set -l next (__backupctl_command "$node" $w)
                if test -n "$next"; and test $npos -eq 0
                    set node $next
                else
                    set npos (math $npos + 1)
                end
        end
        set i (math $i + 1)
    end
    if string match -q -- '--*=*' $cur
        set -l flag (string replace -r '=.*' '' -- $cur)
        set -l spec (__backupctl_flag_value "$node" $flag)
        if test -n "$spec"
            __backupctl_values "$spec" "$flag=" $run
        end
        return
    end
    if test $n -ge 2; and string match -q -- '-?*' $tokens[-1]
        set -l spec (__backupctl_flag_value "$node" $tokens[-1])
        if test -n "$spec"
            __backupctl_values "$spec" '' $run
            return
        end
    end
    if string match -q -- '-*' $cur
        __backupctl_flags "$node"
        __backupctl_global_flags
        if test -z "$node"
            __backupctl_root_flags
        end
        return
    end
    if test $npos -eq 0
        __backupctl_subcommands "$node"
    end
    set -l spec (__backupctl_positional "$node" $npos)
    if test -n "$spec"
        __backupctl_values "$spec" '' $run
    end
end

complete -c backupctl -f -a '(__backupctl_complete)'
