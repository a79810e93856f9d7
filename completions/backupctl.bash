# bash completion for backupctl
# Generated from the command registry by `npm run docs` (the same as `backupctl completion bash`); do not edit.
#
# This shell:      source <(backupctl completion bash)
# Every shell:     backupctl completion bash > ~/.local/share/bash-completion/completions/backupctl
# Ids of jobs and servers come from the service (backupctl __complete ids jobs), cached for a minute.

# The command that word $2 names below command $1 ('' is the top), or nothing.
__backupctl_command() {
  case "$1/$2" in
    '/auth') echo 'auth' ;;
    '/profiles') echo 'profiles' ;;
    '/config') echo 'config' ;;
    '/servers') echo 'servers' ;;
    '/ssh-keys') echo 'ssh-keys' ;;
    '/api') echo 'api' ;;
    '/schema') echo 'schema' ;;
    '/completion') echo 'completion' ;;
    '/emulator') echo 'emulator' ;;
    '/help') echo 'help' ;;
    'auth/login') echo 'auth login' ;;
    'auth/status') echo 'auth status' ;;
    'auth/logout') echo 'auth logout' ;;
    'auth/token') echo 'auth token' ;;
    'profiles/list') echo 'profiles list' ;;
    'profiles/use') echo 'profiles use' ;;
    'profiles/remove') echo 'profiles remove' ;;
    'config/get') echo 'config get' ;;
    'config/set') echo 'config set' ;;
    'config/list') echo 'config list' ;;
    'config/path') echo 'config path' ;;
    'servers/list') echo 'servers list' ;;
    'servers/add') echo 'servers add' ;;
    'servers/code') echo 'servers code' ;;
    'ssh-keys/list') echo 'ssh-keys list' ;;
    'ssh-keys/create') echo 'ssh-keys create' ;;
    'ssh-keys/rename') echo 'ssh-keys rename' ;;
    'ssh-keys/delete') echo 'ssh-keys delete' ;;
  esac
}

# The subcommands of command $1.
__backupctl_subcommands() {
  case "$1" in
    '') echo 'auth profiles config servers ssh-keys api schema completion emulator help' ;;
    'auth') echo 'login status logout token' ;;
    'profiles') echo 'list use remove' ;;
    'config') echo 'get set list path' ;;
    'servers') echo 'list add code' ;;
    'ssh-keys') echo 'list create rename delete' ;;
  esac
}

# The flags of command $1, without the global ones.
__backupctl_flags() {
  case "$1" in
    'auth login') echo '--with-token' ;;
    'servers list') echo '--name --host --modified-since --page --page-size --all --sort --fail-if-empty' ;;
    'servers add') echo '--name --host --port --user --key' ;;
    'servers code') echo '--key' ;;
    'ssh-keys list') echo '--modified-since --page --page-size --all --sort --fail-if-empty' ;;
    'ssh-keys create') echo '--name' ;;
    'api') echo '--method -X --raw-field -f --field -F --input --paginate' ;;
    'emulator') echo '--port --token --seed --latency --fault --outcome --big-job --tick' ;;
  esac
}

__backupctl_global_flags() {
  echo '--profile --base-url --output -o --json --quiet -q --columns --no-headers --debug --timeout --no-color --yes -y --config-dir --dry-run --help -h'
}

__backupctl_root_flags() {
  echo '--version -v'
}

# What the value of flag $2 of command $1 completes to; nothing when the flag takes no value.
__backupctl_flag_value() {
  case "$1/$2" in
    'servers list/--name') echo 'none' ;;
    'servers list/--host') echo 'none' ;;
    'servers list/--modified-since') echo 'none' ;;
    'servers list/--page') echo 'none' ;;
    'servers list/--page-size') echo 'none' ;;
    'servers list/--sort') echo 'words id -id host -host name -name created_at -created_at last_used_at -last_used_at' ;;
    'servers add/--name') echo 'none' ;;
    'servers add/--host') echo 'none' ;;
    'servers add/--port') echo 'none' ;;
    'servers add/--user') echo 'none' ;;
    'servers add/--key') echo 'none' ;;
    'servers code/--key') echo 'none' ;;
    'ssh-keys list/--modified-since') echo 'none' ;;
    'ssh-keys list/--page') echo 'none' ;;
    'ssh-keys list/--page-size') echo 'none' ;;
    'ssh-keys list/--sort') echo 'words id -id name -name created_at -created_at updated_at -updated_at last_used_at -last_used_at' ;;
    'ssh-keys create/--name') echo 'none' ;;
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
    'emulator/--tick') echo 'none' ;;
    */--profile) echo 'none' ;;
    */--base-url) echo 'none' ;;
    */--output|*/-o) echo 'words table json ndjson tsv' ;;
    */--columns) echo 'none' ;;
    */--timeout) echo 'none' ;;
    */--config-dir) echo 'dirs' ;;
  esac
}

# What positional argument $2 (from 0) of command $1 completes to.
__backupctl_positional() {
  case "$1/$2" in
    'config get/0') echo 'words base_url output timeout token' ;;
    'config set/0') echo 'words base_url output timeout token' ;;
    'completion/0') echo 'words bash zsh fish' ;;
    'help/0') echo 'words exit-codes environment cron auth profiles config servers ssh-keys api schema completion emulator' ;;
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
      while IFS=$'\t' read -r w _; do
        [[ -n $w && $w == "$cur"* ]] && COMPREPLY+=("$w")
      done < <("${COMP_WORDS[0]}" "${extra[@]}" __complete ids "${values[0]}" 2>/dev/null) ;;
  esac
}

_backupctl() {
  local cur="${COMP_WORDS[COMP_CWORD]}" prev="" node="" npos=0 i w next spec
  # --profile, --base-url and --config-dir given on the line pick the service the ids come from.
  local -a extra=()
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
        if [[ -n $next && $npos -eq 0 ]]; then node="$next"; else npos=$((npos + 1)); fi ;;
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
