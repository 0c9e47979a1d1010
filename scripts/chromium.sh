#!/usr/bin/env bash
# Installs Debian's chromium where it is missing: the approval page's browser test drives it with
# playwright-core (test/mcp/web-approval.test.ts), which downloads no browser of its own.
set -euo pipefail

CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
  echo "chromium: $("$CHROMIUM" --version 2>/dev/null || echo "$CHROMIUM") already installed"
  exit 0
fi
echo "chromium: installing Debian's chromium"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
echo "chromium: $("$CHROMIUM" --version) installed"
