// The bash script: names of the resources that have them (quoted when they hold a space),
// ids of the others, from `backupctl __complete` (dynamic.ts).
import type { CompletionModel, FlagInfo } from './tree.js';
import { NAMED_KINDS } from '../cli/resolve.js';
import { HEADER_NOTE, commandEntries, flagValueEntries, positionalEntries, shCase, sq } from './parts.js';

export function bashScript(model: CompletionModel): string {
  // The resources with names: bash offers their names (zsh and fish show the id beside each).
  const namedKinds = Object.entries(NAMED_KINDS)
    .filter(([, k]) => k.list)
    .map(([kind]) => kind)
    .join(' ');
  const words = (list: string[]) => `echo ${sq(list.join(' '))}`;
  const flagNames = (flags: FlagInfo[]) => flags.flatMap((f) => f.names);
  return `# bash completion for backupctl
# ${HEADER_NOTE} bash\`); do not edit.
#
# This shell:      source <(backupctl completion bash)
# Every shell:     backupctl completion bash > ~/.local/share/bash-completion/completions/backupctl
# Names of jobs, servers, keys, storage, accounts, droplets and volumes (quoted when they hold a space), and the ids
# of snapshots, restores and backups come from the service (backupctl __complete names jobs), cached for a minute;
# profiles from the config file.

# The command that word $2 names below command $1 ('' is the top), or nothing.
__backupctl_command() {
${shCase('"$1/$2"', commandEntries(model, sq), (b) => `echo ${sq(b)}`)}
}

# The subcommands of command $1.
__backupctl_subcommands() {
${shCase('"$1"', model.nodes.filter((n) => n.subcommands.length).map((n) => ({ patterns: [sq(n.key)], body: n.subcommands.map((s) => s.name).join(' ') })), (b) => `echo ${sq(b)}`)}
}

# The flags of command $1, without the global ones.
__backupctl_flags() {
${shCase('"$1"', model.nodes.filter((n) => n.flags.length).map((n) => ({ patterns: [sq(n.key)], body: flagNames(n.flags).join(' ') })), (b) => `echo ${sq(b)}`)}
}

__backupctl_global_flags() {
  ${words(flagNames(model.globals))}
}

__backupctl_root_flags() {
  ${words(flagNames(model.rootOnly))}
}

# What the value of flag $2 of command $1 completes to; nothing when the flag takes no value.
__backupctl_flag_value() {
${shCase('"$1/$2"', flagValueEntries(model, sq), (b) => `echo ${sq(b)}`)}
}

# What positional argument $2 (from 0) of command $1 completes to.
__backupctl_positional() {
${shCase('"$1/$2"', positionalEntries(model, sq), (b) => `echo ${sq(b)}`)}
}

# Adds the candidates of value spec $1 that match $cur to COMPREPLY.
__backupctl_reply() {
  local -a values=()
  local w pre="" last="$cur"
  read -r -a values <<<"\${1#* }"
  case "\${1%% *}" in
    words)
      for w in "\${values[@]}"; do [[ $w == "$cur"* ]] && COMPREPLY+=("$w"); done ;;
    list)
      if [[ $cur == *,* ]]; then pre="\${cur%,*},"; last="\${cur##*,}"; fi
      for w in "\${values[@]}"; do
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
      if [[ " ${namedKinds} " == *" \${values[0]} "* ]]; then
        __backupctl_names "\${values[0]}"
      else
        while IFS=$'\\t' read -r w _; do
          [[ -n $w && $w == "$cur"* ]] && COMPREPLY+=("$w")
        done < <("\${COMP_WORDS[0]}" "\${extra[@]}" __complete ids "\${values[0]}" "\${args[@]:0:2}" 2>/dev/null)
      fi ;;
  esac
}

# Adds to COMPREPLY the names of resource $1 that start with what is typed (in quotes, with
# backslashes or bare), quoted when they hold a space or another character the shell reads;
# the id of a record with no name, or whose id starts with what is typed.
__backupctl_names() {
  local w id q="" typed
  case "$cur" in
    \\"*) q='"'; typed="\${cur#\\"}" ;;
    \\'*) q="'"; typed="\${cur#\\'}" ;;
    *) typed="\${cur//\\\\/}" ;;
  esac
  while IFS=$'\\t' read -r w id; do
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
  done < <("\${COMP_WORDS[0]}" "\${extra[@]}" __complete names "$1" "\${args[@]:0:2}" 2>/dev/null)
}

_backupctl() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" node="" npos=0 i w next spec
  # --profile, --base-url and --config-dir given on the line pick the service the ids come from;
  # the arguments before the one completed narrow them (the job of a backup, schema's words).
  local -a extra=() args=()
  COMPREPLY=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in
      -*=*) ;;
      -?*)
        spec="$(__backupctl_flag_value "$node" "$w")"
        if [[ -n $spec ]] && ((i + 1 < COMP_CWORD)); then
          i=$((i + 1))
          # bash splits --flag=value at the = (COMP_WORDBREAKS).
          if [[ \${COMP_WORDS[i]} == "=" ]] && ((i + 1 < COMP_CWORD)); then i=$((i + 1)); fi
          case "$w" in --profile | --base-url | --config-dir) extra+=("$w" "\${COMP_WORDS[i]}") ;; esac
        fi ;;
      *)
        next="$(__backupctl_command "$node" "$w")"
        if [[ -n $next && $npos -eq 0 ]]; then node="$next"; else npos=$((npos + 1)); args+=("$w"); fi ;;
    esac
  done
  if ((COMP_CWORD > 1)); then prev="\${COMP_WORDS[COMP_CWORD - 1]}"; fi
  if [[ $cur == "=" ]]; then
    cur=""
  elif [[ $prev == "=" ]] && ((COMP_CWORD > 2)); then
    prev="\${COMP_WORDS[COMP_CWORD - 2]}"
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
`;
}

