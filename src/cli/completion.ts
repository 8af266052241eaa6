/**
 * `ferry completion bash|zsh|fish`: a shell completion script for ferry's
 * commands, their subcommands and options, generated from the command table
 * (commands.ts) so it lists what this ferry has. Sync names are completed
 * from ferry.yaml in the current folder, by asking `ferry config show`.
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { RegisterCommand } from './main.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

interface Entry {
  name: string;
  description: string;
  options: string[];
  subcommands: Entry[];
}

function entryOf(command: Command): Entry {
  return {
    name: command.name(),
    description: command.description().split('\n')[0] ?? '',
    options: command.options.flatMap((option) => [option.long, option.short].filter((flag): flag is string => flag !== undefined)),
    subcommands: command.commands.map(entryOf),
  };
}

/** Commands whose arguments are sync (or export) names. */
const TAKES_SYNCS = new Set(['run', 'discover', 'preview', 'status', 'export', 'list', 'retry', 'purge', 'show', 'reset']);
const SYNC_NAMES = `ferry config show --json 2>/dev/null | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{const c=JSON.parse(s);console.log([...c.syncs,...c.exports].map(x=>x.name).join(" "))}catch{}})'`;

function bash(root: Entry): string {
  const cases = root.subcommands
    .map((command) => {
      const words = [...command.subcommands.map((s) => s.name), ...command.options, '--help'].join(' ');
      return `    ${command.name}) words="${words}"${TAKES_SYNCS.has(command.name) ? '; syncs=1' : ''} ;;`;
    })
    .join('\n');
  return `# ferry completion for bash: eval "$(ferry completion bash)", or save it under /etc/bash_completion.d/
_ferry() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" command="" words="" syncs=0 i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in -c|--config|--log-level|--log-format) ((i++)) ;; -*) ;; *) command="\${COMP_WORDS[i]}"; break ;; esac
  done
  if [[ -z "$command" ]]; then
    COMPREPLY=($(compgen -W "${root.subcommands.map((c) => c.name).join(' ')} ${root.options.join(' ')}" -- "$cur"))
    return
  fi
  case "$command" in
${cases}
  esac
  if [[ $syncs == 1 && "$cur" != -* ]]; then words="$words $(${SYNC_NAMES})"; fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _ferry ferry
`;
}

function zsh(root: Entry): string {
  // zsh runs bash completion functions through bashcompinit: one script to keep right.
  return `#compdef ferry
# ferry completion for zsh: eval "$(ferry completion zsh)" in ~/.zshrc
autoload -U +X bashcompinit && bashcompinit
${bash(root).split('\n').slice(1).join('\n')}`;
}

function fish(root: Entry): string {
  const quote = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const lines = [`# ferry completion for fish: ferry completion fish > ~/.config/fish/completions/ferry.fish`, 'complete -c ferry -f'];
  const top = root.subcommands.map((c) => c.name).join(' ');
  for (const command of root.subcommands) {
    lines.push(`complete -c ferry -n "not __fish_seen_subcommand_from ${top}" -a ${command.name} -d ${quote(command.description)}`);
    for (const sub of command.subcommands) {
      lines.push(`complete -c ferry -n "__fish_seen_subcommand_from ${command.name}" -a ${sub.name} -d ${quote(sub.description)}`);
    }
    for (const option of command.options.filter((o) => o.startsWith('--'))) {
      lines.push(`complete -c ferry -n "__fish_seen_subcommand_from ${command.name}" -l ${option.slice(2)}`);
    }
    if (TAKES_SYNCS.has(command.name)) lines.push(`complete -c ferry -n "__fish_seen_subcommand_from ${command.name}" -a "(${SYNC_NAMES})"`);
  }
  for (const option of root.options.filter((o) => o.startsWith('--'))) lines.push(`complete -c ferry -l ${option.slice(2)}`);
  return `${lines.join('\n')}\n`;
}

/** The completion script for `shell`, from the program's commands (main.ts loads them all for `ferry completion`). */
export function completionScript(program: Command, shell: Shell): string {
  const root = entryOf(program);
  return shell === 'bash' ? bash(root) : shell === 'zsh' ? zsh(root) : fish(root);
}

function parseShell(value: string): Shell {
  if (!(SHELLS as readonly string[]).includes(value)) throw new InvalidArgumentError(`must be one of ${SHELLS.join(', ')}`);
  return value as Shell;
}

export const register: RegisterCommand = (command) => {
  command.argument('<shell>', `${SHELLS.join(', ')}`, parseShell).action((shell: Shell) => {
    process.stdout.write(completionScript(command.parent ?? command, shell));
  });
};
