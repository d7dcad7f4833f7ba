#!/usr/bin/env bash
# Installs the pinned Codex CLI (version in .ci/codex.version) into a
# versioned cache folder outside the module and prints the absolute path of
# the `codex` binary as the last line of stdout. Everything else goes to
# stderr, so `UNTETHER_TEST_CODEX=$(.ci/install-codex.sh | tail -n1)` works.
#
# The npm package @openai/codex is a node launcher (bin/codex.js) whose
# optional dependency @openai/codex-linux-x64 (or the platform's) ships the
# native binary under vendor/<target>/bin/codex; the launcher needs `node`
# on PATH. No install script runs. Like install-claude.sh: idempotent, and a
# failed install never leaves a half-filled version folder behind.
#
# Environment:
#   UNTETHER_CODEX_CACHE  cache root (default: $HOME/.cache/untether-codex)
#   CODEX_VERSION         overrides the pinned version (default: .ci/codex.version)
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
version=${CODEX_VERSION:-$(tr -d '[:space:]' <"$script_dir/codex.version")}
if [[ ! $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
	echo "install-codex: bad version '$version' (expected X.Y.Z)" >&2
	exit 1
fi
command -v node >/dev/null || {
	echo "install-codex: node is required on PATH (the codex launcher is a node script)" >&2
	exit 1
}

cache_root=${UNTETHER_CODEX_CACHE:-$HOME/.cache/untether-codex}
mkdir -p "$cache_root"
cache_root=$(cd "$cache_root" && pwd)
dest=$cache_root/$version
bin=$dest/node_modules/.bin/codex

# reports_version DIR: does DIR's codex run and print the pinned version
# ("codex-cli 0.171.0")?
reports_version() {
	local b=$1/node_modules/.bin/codex out
	[[ -x $b ]] || return 1
	out=$("$b" --version 2>/dev/null) || return 1
	[[ ${out##* } == "$version" ]]
}

if reports_version "$dest"; then
	echo "$bin"
	exit 0
fi

command -v npm >/dev/null || {
	echo "install-codex: npm is required to install @openai/codex@$version" >&2
	exit 1
}

scratch=$(mktemp -d "$cache_root/.install-$version.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
chmod 755 "$scratch"
# A package.json of its own keeps npm from walking up into some enclosing project.
printf '{"name":"untether-codex-cache","private":true}\n' >"$scratch/package.json"

echo "install-codex: installing @openai/codex@$version into $dest" >&2
npm install --prefix "$scratch" \
	--no-audit --no-fund --no-save --no-package-lock --no-update-notifier \
	--loglevel=error \
	"@openai/codex@$version" >&2

# The native binary must be there: without it the launcher fails at the
# first run, not here.
if ! compgen -G "$scratch/node_modules/@openai/codex-*/vendor/*/bin/codex" >/dev/null; then
	echo "install-codex: no native codex binary for this platform in @openai/codex@$version" >&2
	exit 1
fi
if ! reports_version "$scratch"; then
	echo "install-codex: installed codex does not report version $version" >&2
	exit 1
fi

rm -rf "$dest"
mv "$scratch" "$dest"
trap - EXIT
echo "$bin"
