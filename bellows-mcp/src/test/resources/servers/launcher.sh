#!/bin/sh
# Starts the real server as a child, as npx and uv do: the server is Bellows' grandchild.
"$@"
echo "launcher: the server exited" >&2
