#!/usr/bin/env bash
# install-chromium.sh installs headless Chromium and the Liberation fonts
# for TestReportRendersInChromium (cmd/report), which screenshots the HTML
# page of `go run ./cmd/report`. It is idempotent: when chromium is already
# on PATH it does nothing. It needs root (CI runs as root; no sudo) and a
# Debian or Ubuntu apt. fonts-liberation supplies Liberation Sans, the font
# the report's SVG charts name first (internal/charts lays text out with
# its metrics).
#
# Usage: scripts/install-chromium.sh
set -euo pipefail

if command -v chromium >/dev/null 2>&1; then
	echo "install-chromium: $(command -v chromium) is already installed"
	exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "install-chromium: apt-get not found: install chromium and fonts-liberation by hand" >&2
	exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "install-chromium: must run as root (apt-get install), got uid $(id -u)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends chromium fonts-liberation
command -v chromium >/dev/null 2>&1 || {
	echo "install-chromium: apt-get installed chromium but it is not on PATH" >&2
	exit 1
}
echo "install-chromium: installed $(chromium --version 2>/dev/null || echo chromium)"
