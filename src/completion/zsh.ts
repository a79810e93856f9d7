// The zsh script: names with their ids as descriptions, from `backupctl __complete names`.
import type { CompletionModel, FlagInfo } from './tree.js';
import { HEADER_NOTE, commandEntries, flagValueEntries, oneLine, positionalEntries, shCase, sq } from './parts.js';

export function zshScript(model: CompletionModel): string {
  // `name:description` lines for _describe; a colon in a name is escaped.
  const described = (items: Array<{ name: string; summary: string }>) =>
    items.map((i) => `${i.name.replace(/:/g, '\\:')}:${oneLine(i.summary)}`);
  const flagLines = (flags: FlagInfo[]) => described(flags.flatMap((f) => f.names.map((name) => ({ name, summary: f.summary }))));
  const lines = (items: string[]) => `print -rl -- ${items.map(sq).join(' ')}`;
  return `#compdef backupctl
compdef _backupctl backupctl
# zsh completion for backupctl
# ${HEADER_NOTE} zsh\`); do not edit.
#
# Every shell:  save it as _backupctl in a folder of $fpath, e.g.
#                 backupctl completion zsh > "\${fpath[1]}/_backupctl"
#               (with compinit in ~/.zshrc), then start a new shell.
# This shell:   source <(backupctl completion zsh)   (after compinit)
# Names of jobs, servers, keys, storage, accounts, droplets and volumes, each with its id, and the ids of snapshots,
# restores and backups come from the service (backupctl __complete names jobs), cached for a minute.

# The command that word $2 names below command $1 ('' is the top), or nothing.
__backupctl_command() {
${shCase('"$1/$2"', commandEntries(model, sq), (b) => `print -r -- ${sq(b)}`)}
}

# The subcommands of command $1, as name:description lines.
__backupctl_subcommands() {
${shCase('"$1"', model.nodes.filter((n) => n.subcommands.length).map((n) => ({ patterns: [sq(n.key)], body: lines(described(n.subcommands)) })), (b) => b)}
}

# The flags of command $1 without the global ones, as name:description lines.
__backupctl_flags() {
${shCase('"$1"', model.nodes.filter((n) => n.flags.length).map((n) => ({ patterns: [sq(n.key)], body: lines(flagLines(n.flags)) })), (b) => b)}
}

__backupctl_global_flags() {
  ${lines(flagLines(model.globals))}
}

__backupctl_root_flags() {
  ${lines(flagLines(model.rootOnly))}
}

# What the value of flag $2 of command $1 completes to; nothing when the flag takes no value.
__backupctl_flag_value() {
${shCase('"$1/$2"', flagValueEntries(model, sq), (b) => `print -r -- ${sq(b)}`)}
}

# What positional argument $2 (from 0) of command $1 completes to.
__backupctl_positional() {
${shCase('"$1/$2"', positionalEntries(model, sq), (b) => `print -r -- ${sq(b)}`)}
}

# Offers the candidates of value spec $1.
__backupctl_values() {
  local -a values described
  local line
  values=(\${=\${1#* }})
  case \${1%% *} in
    words) compadd -a values ;;
    list) _values -s , value $values ;;
    files) _files ;;
    dirs) _files -/ ;;
    ids)
      for line in \${(f)"$("\${words[1]}" "\${extra[@]}" __complete names "\${values[1]}" \${args[1,2]} 2>/dev/null)"}; do
        if [[ $line == *$'\\t'* ]]; then
          described+=("\${\${line%%$'\\t'*}//:/\\\\:}:\${line#*$'\\t'}")
        else
          described+=("\${line//:/\\\\:}")
        fi
      done
      _describe -t ids id described ;;
    *) return 1 ;;
  esac
}

_backupctl() {
  local cur=\${words[CURRENT]} prev='' node='' npos=0 i w next spec ret=1
  # --profile, --base-url and --config-dir given on the line pick the service the ids come from;
  # the arguments before the one completed narrow them (the job of a backup, schema's words).
  local -a extra args items
  for ((i = 2; i < CURRENT; i++)); do
    w=\${words[i]}
    case $w in
      -*=*) ;;
      -?*)
        spec=$(__backupctl_flag_value "$node" "$w")
        if [[ -n $spec ]] && ((i + 1 < CURRENT)); then
          i=$((i + 1))
          case $w in --profile | --base-url | --config-dir) extra+=("$w" "\${words[i]}") ;; esac
        fi ;;
      *)
        next=$(__backupctl_command "$node" "$w")
        if [[ -n $next && $npos -eq 0 ]]; then node=$next; else npos=$((npos + 1)); args+=("$w"); fi ;;
    esac
  done
  ((CURRENT > 2)) && prev=\${words[CURRENT-1]}
  if [[ $cur == --*=* ]]; then
    spec=$(__backupctl_flag_value "$node" "\${cur%%=*}")
    [[ -n $spec ]] || return 1
    compset -P '*='
    __backupctl_values "$spec"
    return
  fi
  if [[ $prev == -?* ]]; then
    spec=$(__backupctl_flag_value "$node" "$prev")
    if [[ -n $spec ]]; then
      __backupctl_values "$spec"
      return
    fi
  fi
  if [[ $cur == -* ]]; then
    items=(\${(f)"$(__backupctl_flags "$node"; __backupctl_global_flags; [[ -z $node ]] && __backupctl_root_flags)"})
    _describe -t options option items
    return
  fi
  if ((npos == 0)); then
    items=(\${(f)"$(__backupctl_subcommands "$node")"})
    ((\${#items})) && _describe -t commands command items && ret=0
  fi
  spec=$(__backupctl_positional "$node" "$npos")
  [[ -n $spec ]] && __backupctl_values "$spec" && ret=0
  return ret
}

# Loaded from $fpath, this file is the body of _backupctl: run the completion now.
if [[ $funcstack[1] == _backupctl ]]; then
  _backupctl "$@"
fi
`;
}

