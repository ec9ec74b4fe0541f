#!/usr/bin/env bash
# Browser test dependencies: headless Chromium (apt) and axe-core (npm, into tests/export/node).
# The HTML export tests skip with a reason when either is missing, so this script may fail softly.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""
    if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q chromium || \
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q chromium-browser
  else
    echo "apt-get not available: install Chromium yourself to run the browser tests" >&2
  fi
fi
if [ ! -f tests/export/node/node_modules/axe-core/axe.min.js ]; then
  if command -v npm >/dev/null 2>&1; then
    mkdir -p tests/export/node
    npm install --prefix tests/export/node --no-audit --no-fund --silent axe-core@4
  else
    echo "npm not available: install axe-core into tests/export/node to run the accessibility test" >&2
  fi
fi
