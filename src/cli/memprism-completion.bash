# SPDX-License-Identifier: MIT
# bash completion for memprism: installed as
# share/bash-completion/completions/memprism, where bash-completion loads it
# the first time `memprism` is completed. Everything it offers comes from
# the binary being completed, so it cannot fall behind it: the commands
# (memprism --list-commands), each command's options (--list-opts,
# --list-shorts), the words an option takes (--list-values: --by's views,
# --format's formats, --model's machines, ...) and, for --roi and fold's
# REGION, the regions of the data file on the line (memprism dump, given
# two seconds: a big trace is not worth waiting for). Needs nothing of
# bash-completion's own functions.

# _memprism_takes_arg TAKES WORD: WORD is an option that wants an argument
# (TAKES: the command's --list-opts and --list-shorts)
_memprism_takes_arg() {
	case $2 in
	--*) grep -qxF -- "$2=" <<<"$1" ;;
	-?) grep -qE -- "^$2 --.*=$" <<<"$1" ;;
	*) return 1 ;;
	esac
}

# _memprism_values MEMPRISM CMD OPT: the words OPT's argument may be (OPT
# its long name, without "=")
_memprism_values() {
	local mp=$1 cmd=$2 opt=$3 data
	case $opt in
	--roi)
		data=$(_memprism_data "$mp" "$cmd")
		[ -r "$data" ] && timeout 2 "$mp" dump -q "$data" 2>/dev/null |
			sed -n 's/^.* region_begin .* "\(.*\)"$/\1/p' | sort -u
		;;
	*) "$mp" --list-values "$cmd" "$opt" 2>/dev/null ;;
	esac
}

# The data file on the command line (the first operand after the
# command's own: fold's REGION comes first), or memprism.data.
_memprism_data() {
	local mp=$1 cmd=$2 i w skip=0 operands=0 want=1 takes
	[ "$cmd" = fold ] && want=2
	takes=$("$mp" --list-opts "$cmd" 2>/dev/null; "$mp" --list-shorts "$cmd" 2>/dev/null)
	for ((i = 2; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if ((skip)); then
			skip=0
			continue
		fi
		case $w in
		--*=*) ;;
		-*) _memprism_takes_arg "$takes" "$w" && skip=1 ;;
		*)
			operands=$((operands + 1))
			if ((operands == want)); then
				echo "$w"
				return
			fi
			;;
		esac
	done
	echo memprism.data
}

_memprism() {
	local mp=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} prev= cmd i w opt long takes operands=0
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()
	if ((COMP_CWORD == 1)); then
		mapfile -t COMPREPLY < <(compgen -W "$("$mp" --list-commands 2>/dev/null) --help --version" -- "$cur")
		return
	fi
	cmd=${COMP_WORDS[1]}
	case $cmd in
	cc | c++ | gcc | g++) # the compiler's arguments: files
		compopt -o default 2>/dev/null
		return
		;;
	esac
	# record: after "--" or the program's name, the words are the program's
	if [ "$cmd" = record ]; then
		takes=$("$mp" --list-opts record 2>/dev/null; "$mp" --list-shorts record 2>/dev/null)
		for ((i = 2; i < COMP_CWORD; i++)); do
			w=${COMP_WORDS[i]}
			case $w in
			--) operands=1 ;;
			--*=* | -) ;;
			-*) _memprism_takes_arg "$takes" "$w" && i=$((i + 1)) ;;
			*) operands=1 ;;
			esac
			((operands)) && break
		done
		if ((operands)); then
			compopt -o default 2>/dev/null
			# the program itself: a command, or a file
			if [ "${COMP_WORDS[i]}" = -- ] && ((i + 1 == COMP_CWORD)); then
				mapfile -t COMPREPLY < <(compgen -c -- "$cur")
			fi
			return
		fi
	fi
	# --opt=VALUE
	if [[ $cur == --*=* ]]; then
		opt=${cur%%=*}
		cur=${cur#*=}
		mapfile -t COMPREPLY < <(compgen -W "$(_memprism_values "$mp" "$cmd" "$opt")" -- "$cur")
		[ ${#COMPREPLY[@]} -gt 0 ] || compopt -o default 2>/dev/null
		return
	fi
	# the argument of the option before: its words, or a file
	case $prev in
	--*)
		if "$mp" --list-opts "$cmd" 2>/dev/null | grep -qxF -- "$prev="; then
			long=$prev
		fi
		;;
	-?)
		long=$("$mp" --list-shorts "$cmd" 2>/dev/null | awk -v s="$prev" '$1 == s && $2 ~ /=$/ { sub(/=$/, "", $2); print $2 }')
		;;
	esac
	if [ -n "${long:-}" ]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_memprism_values "$mp" "$cmd" "$long")" -- "$cur")
		[ ${#COMPREPLY[@]} -gt 0 ] || compopt -o default 2>/dev/null
		return
	fi
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$("$mp" --list-opts "$cmd" 2>/dev/null | sed 's/=$//')" -- "$cur")
		return
	fi
	# fold's first operand is a region
	if [ "$cmd" = fold ] && ! _memprism_has_operand "$mp" fold; then
		mapfile -t COMPREPLY < <(compgen -W "$(_memprism_values "$mp" fold --roi)" -- "$cur")
		return
	fi
	compopt -o default 2>/dev/null # the data file
}

# An operand before the word being completed (after the command's options)
_memprism_has_operand() {
	local mp=$1 cmd=$2 i w takes
	takes=$("$mp" --list-opts "$cmd" 2>/dev/null; "$mp" --list-shorts "$cmd" 2>/dev/null)
	for ((i = 2; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case $w in
		--*=*) ;;
		-*) _memprism_takes_arg "$takes" "$w" && i=$((i + 1)) ;;
		*) return 0 ;;
		esac
	done
	return 1
}

complete -F _memprism memprism
