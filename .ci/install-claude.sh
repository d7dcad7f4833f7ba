#!/usr/bin/env bash
# Installs the pinned Claude Code CLI (version in .ci/claude-code.version) into
# a versioned cache folder outside the module and prints the absolute path of
# the `claude` binary as the last line of stdout. Everything else goes to
# stderr, so `UNTETHER_TEST_CLAUDE=$(.ci/install-claude.sh | tail -n1)` works.
#
# Idempotent: when the binary is already there and reports the pinned version,
# nothing is downloaded. A failed or interrupted install never leaves a
# half-filled version folder behind, because the install happens in a scratch
# folder that is renamed into place only once the binary answers --version.
#
# Environment:
#   UNTETHER_CLAUDE_CACHE  cache root (default: $HOME/.cache/untether-claude)
#   CLAUDE_CODE_VERSION    overrides the pinned version (default: .ci/claude-code.version)
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
version=${CLAUDE_CODE_VERSION:-$(tr -d '[:space:]' <"$script_dir/claude-code.version")}
if [[ ! $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
	echo "install-claude: bad version '$version' (expected X.Y.Z)" >&2
	exit 1
fi

cache_root=${UNTETHER_CLAUDE_CACHE:-$HOME/.cache/untether-claude}
mkdir -p "$cache_root"
cache_root=$(cd "$cache_root" && pwd)
dest=$cache_root/$version
bin=$dest/node_modules/.bin/claude

# reports_version DIR: does DIR's claude binary run and print the pinned version?
reports_version() {
	local b=$1/node_modules/.bin/claude out
	[[ -x $b ]] || return 1
	out=$("$b" --version 2>/dev/null) || return 1
	[[ ${out%% *} == "$version" ]]
}

if reports_version "$dest"; then
	echo "$bin"
	exit 0
fi

command -v npm >/dev/null || {
	echo "install-claude: npm is required to install @anthropic-ai/claude-code@$version" >&2
	exit 1
}

scratch=$(mktemp -d "$cache_root/.install-$version.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
chmod 755 "$scratch"
# A package.json of its own keeps npm from walking up into some enclosing
# project. The package's postinstall copies the native binary over a
# placeholder; newer npm versions run only install scripts listed in
# allowScripts (older ones ignore the field).
printf '{"name":"untether-claude-cache","private":true,"allowScripts":{"@anthropic-ai/claude-code@%s":true}}\n' \
	"$version" >"$scratch/package.json"

echo "install-claude: installing @anthropic-ai/claude-code@$version into $dest" >&2
npm install --prefix "$scratch" \
	--no-audit --no-fund --no-save --no-package-lock --no-update-notifier \
	--loglevel=error \
	"@anthropic-ai/claude-code@$version" >&2

if ! reports_version "$scratch"; then
	# The postinstall did not run (scripts disabled by the user's npm config):
	# run it by hand, it only links the platform binary into place.
	echo "install-claude: running the package's postinstall by hand" >&2
	(cd "$scratch/node_modules/@anthropic-ai/claude-code" && node install.cjs) >&2
fi
if ! reports_version "$scratch"; then
	echo "install-claude: installed claude does not report version $version" >&2
	exit 1
fi

# Replace a stale or broken folder; rename is atomic on one filesystem.
rm -rf "$dest"
mv "$scratch" "$dest"
trap - EXIT
echo "$bin"
