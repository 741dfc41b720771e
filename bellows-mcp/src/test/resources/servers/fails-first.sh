#!/bin/sh
# A server that is not ready at first: its first K starts fail, then it runs COMMAND.
# Usage: fails-first.sh COUNT_FILE K COMMAND [ARGS...]; COUNT_FILE counts the starts.
# With GATE set, every start after the first waits until the file $GATE exists, so that a
# test can look at the servers while this one has failed once and not yet come back.
count_file=$1
k=$2
shift 2
n=$(( $(cat "$count_file" 2>/dev/null || echo 0) + 1 ))
echo "$n" > "$count_file"
if [ "$n" -gt 1 ] && [ -n "$GATE" ]; then
  while [ ! -e "$GATE" ]; do sleep 0.05; done
fi
if [ "$n" -le "$k" ]; then
  echo "start $n: the backend is not ready yet" >&2
  exit 1
fi
exec "$@"
