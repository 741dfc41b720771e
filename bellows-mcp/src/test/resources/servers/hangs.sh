#!/bin/sh
# A broken MCP server: never answers initialize.
sleep 600
