#!/bin/sh
# Write the version header (version and git commit) only when it changes,
# so a rebuild happens after a commit and not otherwise.
root=$1 out=$2 version=$3
commit=$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	commit="$commit-dirty"
fi
new="#define FL_VERSION \"$version\"
#define FL_GIT_COMMIT \"$commit\""
if [ ! -f "$out" ] || [ "$(cat "$out")" != "$new" ]; then
	printf '%s\n' "$new" > "$out.tmp" && mv "$out.tmp" "$out"
fi
