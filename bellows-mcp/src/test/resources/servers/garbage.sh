#!/bin/sh
# A broken MCP server: greets on stdout, which is reserved for the protocol.
echo "Welcome to the garbage server! Listening on stdin..."
sleep 60
