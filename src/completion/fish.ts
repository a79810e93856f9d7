// The fish script: names with their ids as descriptions, from `backupctl __complete names`.
import type { CompletionModel, FlagInfo } from './tree.js';
import { HEADER_NOTE, commandEntries, fishSwitch, flagValueEntries, fq, oneLine, positionalEntries } from './parts.js';

export function fishScript(model: CompletionModel): string {
  // `name<TAB>description` lines; fish shows the description beside the candidate.
  const described = (items: Array<{ name: string; summary: string }>) =>
    items.length ? `printf '%s\\t%s\\n' ${items.map((i) => `${fq(i.name)} ${fq(oneLine(i.summary))}`).join(' ')}` : 'true';
  const flagItems = (flags: FlagInfo[]) => flags.flatMap((f) => f.names.map((name) => ({ name, summary: f.summary })));
  return `# fish completion for backupctl
# ${HEADER_NOTE} fish\`); do not edit.
#
# Every shell:  backupctl completion fish > ~/.config/fish/completions/backupctl.fish
# This shell:   backupctl completion fish | source
# Names of jobs, servers, keys, storage, accounts, droplets and volumes, each with its id, and the ids of snapshots,
# restores and backups come from the service (backupctl __complete names jobs), cached for a minute.

# The command that word $argv[2] names below command $argv[1] ('' is the top), or nothing.
function __backupctl_command
${fishSwitch('"$argv[1]/$argv[2]"', commandEntries(model, fq), (b) => `echo ${fq(b)}`)}
end

# The subcommands of command $argv[1].
function __backupctl_subcommands
${fishSwitch('"$argv[1]"', model.nodes.filter((n) => n.subcommands.length).map((n) => ({ patterns: [fq(n.key)], body: described(n.subcommands) })), (b) => b)}
end

# The flags of command $argv[1], without the global ones.
function __backupctl_flags
${fishSwitch('"$argv[1]"', model.nodes.filter((n) => n.flags.length).map((n) => ({ patterns: [fq(n.key)], body: described(flagItems(n.flags)) })), (b) => b)}
end

function __backupctl_global_flags
    ${described(flagItems(model.globals))}
end

function __backupctl_root_flags
    ${described(flagItems(model.rootOnly))}
end

# What the value of flag $argv[2] of command $argv[1] completes to; nothing when the flag takes no value.
function __backupctl_flag_value
${fishSwitch('"$argv[1]/$argv[2]"', flagValueEntries(model, fq).map((e) => ({ ...e, patterns: e.patterns.map((p) => (p.startsWith('*') ? fq(p) : p)) })), (b) => `echo ${fq(b)}`)}
end

# What positional argument $argv[2] (from 0) of command $argv[1] completes to.
function __backupctl_positional
${fishSwitch('"$argv[1]/$argv[2]"', positionalEntries(model, fq), (b) => `echo ${fq(b)}`)}
end

# Prints the candidates of value spec $argv[1], each after the prefix $argv[2]
# (--flag= when completing --flag=value); $argv[3..] up to -- runs backupctl for ids,
# and the arguments after -- are those before the one completed.
function __backupctl_values
    set -l parts (string split ' ' -- $argv[1])
    set -l prefix $argv[2]
    set -l value (string sub -s (math (string length -- "$prefix") + 1) -- (commandline -ct))
    switch $parts[1]
        case words
            for w in $parts[2..-1]
                printf '%s%s\\n' $prefix $w
            end
        case list
            set -l done (string match -r '^.*,' -- $value)
            for w in $parts[2..-1]
                if not contains -- $w (string split , -- "$done")
                    printf '%s%s%s\\n' $prefix "$done" $w
                end
            end
        case files
            for p in (__fish_complete_path $value)
                printf '%s%s\\n' $prefix $p
            end
        case dirs
            for p in (__fish_complete_directories $value)
                printf '%s%s\\n' $prefix $p
            end
        case ids
            set -l rest $argv[3..-1]
            set -l sep (contains -i -- -- $rest)
            set -l before (math $sep - 1)
            set -l first (math $sep + 1)
            set -l second (math $sep + 2)
            for line in (command $rest[1..$before] __complete names $parts[2] $rest[$first..$second] 2>/dev/null)
                printf '%s%s\\n' $prefix $line
            end
    end
end

function __backupctl_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l n (count $tokens)
    set -l node ''
    set -l npos 0
    # --profile, --base-url and --config-dir given on the line pick the service the ids come from;
    # the arguments before the one completed narrow them (the job of a backup, schema's words).
    set -l run $tokens[1]
    set -l args
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
                    set -a args $w
                end
        end
        set i (math $i + 1)
    end
    if string match -q -- '--*=*' $cur
        set -l flag (string replace -r '=.*' '' -- $cur)
        set -l spec (__backupctl_flag_value "$node" $flag)
        if test -n "$spec"
            __backupctl_values "$spec" "$flag=" $run -- $args
        end
        return
    end
    if test $n -ge 2; and string match -q -- '-?*' $tokens[-1]
        set -l spec (__backupctl_flag_value "$node" $tokens[-1])
        if test -n "$spec"
            __backupctl_values "$spec" '' $run -- $args
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
        __backupctl_values "$spec" '' $run -- $args
    end
end

complete -c backupctl -f -a '(__backupctl_complete)'
`;
}

