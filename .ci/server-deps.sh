#!/usr/bin/env bash
# PostgreSQL server binaries (initdb, pg_ctl) for the tests that start their own server.
# The tests find them on PATH or under /usr/lib/postgresql/*/bin; without them those cases skip.
set -euo pipefail
if ! command -v initdb >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""
    if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q postgresql
  else
    echo "apt-get not available: install PostgreSQL yourself to run the PostgreSQL tests" >&2
  fi
fi
