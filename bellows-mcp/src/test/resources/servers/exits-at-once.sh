#!/bin/sh
# A broken MCP server: fails before reading anything, saying why on stderr.
echo "fatal: the environment variable API_TOKEN is not set" >&2
exit 3
