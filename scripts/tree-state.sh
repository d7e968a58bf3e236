#!/usr/bin/env bash
# tree-state.sh: prints one line per file that differs from the commit
# (tracked and untracked, not ignored): its status and the hash of its
# contents. make check compares the output before and after its rewriting
# steps (go mod tidy, go generate) to name exactly the files they changed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
git status --porcelain=v1 -z --untracked-files=all | while IFS= read -r -d '' entry; do
	path=${entry:3}
	case ${entry:0:2} in R*|C*) IFS= read -r -d '' _ ;; esac
	if [ -f "$path" ]; then
		echo "$path $(git hash-object -- "$path")"
	else
		echo "$path deleted"
	fi
done
