#!/bin/sh
# A broken MCP server: floods its standard error and never answers initialize.
exec yes "a flood of log lines on stderr" >&2
