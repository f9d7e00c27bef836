#!/bin/sh
# write-completions.sh BASH_OUT ZSH_OUT MANPAGE...
# Shell completion for the tools, generated at build time from their man pages, which each tool prints from
# its own option table (--help-man): a completion cannot offer an option the tool does not have, nor miss
# one it gained. bash gets a `complete -F` function per tool (options after '-', files otherwise); zsh
# loads the same through bashcompinit.
set -eu
bash_out=$1
zsh_out=$2
shift 2
{
  echo "# bash completion for ptxlink's tools (generated from their option tables; do not edit)"
  for page in "$@"; do
    tool=$(basename "$page" .1)
    fn=_$(printf '%s' "$tool" | tr -c 'a-zA-Z0-9_\n' _)
    # The spellings on the man page's option lines (".B --arch <sm_XX,...>, --gpu-architecture <...>").
    words=$(sed -n 's/^\.B \\-/-/p' "$page" | sed 's/\\-/-/g' | tr ',' '\n' |
      sed -n 's/^ *\(-[^ <=]*\).*/\1/p' | sort -u | tr '\n' ' ')
    cat <<SCRIPT
$fn() {
  local cur=\${COMP_WORDS[COMP_CWORD]}
  if [[ \$cur == -* ]]; then
    COMPREPLY=(\$(compgen -W "$words" -- "\$cur"))
  else
    COMPREPLY=(\$(compgen -f -- "\$cur"))
  fi
}
complete -o filenames -F $fn $tool
SCRIPT
  done
} > "$bash_out.tmp"
mv "$bash_out.tmp" "$bash_out"
{
  echo "#compdef ptxlink ptxlink-as ptxlink-ar ptxlink-dump"
  echo "# zsh completion for ptxlink's tools: the bash completion, through bashcompinit"
  echo "autoload -U +X bashcompinit && bashcompinit"
  sed '1d' "$bash_out"
} > "$zsh_out.tmp"
mv "$zsh_out.tmp" "$zsh_out"
