#!/usr/bin/env bash
# crossarch.sh: does every bundled scenario print the same bytes when
# simulate is built for arm64 (run under qemu-user) or with GOAMD64=v3 (the
# compiler may then fuse multiply-adds) as with the default amd64 build?
# Installs qemu-user from apt when missing and it can. Prints one line per
# scenario and build; exits 1 if any differs. Extra arguments are passed to
# every `simulate run` (e.g. --replications 4 to compare pooled figures,
# which the README says may still differ in a last digit).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! command -v qemu-aarch64 >/dev/null; then
  if [ "$(id -u)" = 0 ]; then apt-get install -y -q qemu-user >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q qemu-user >/dev/null; }; fi
fi
go build -o "$tmp/ref" ./cmd/simulate
GOAMD64=v3 go build -o "$tmp/v3" ./cmd/simulate
GOARCH=arm64 go build -o "$tmp/arm64" ./cmd/simulate
runners=()
if grep -qw avx2 /proc/cpuinfo 2>/dev/null && grep -qw fma /proc/cpuinfo 2>/dev/null; then
  runners+=("v3:$tmp/v3")
else
  echo "this CPU cannot run a GOAMD64=v3 build (no AVX2/FMA): skipping it"
fi
if command -v qemu-aarch64 >/dev/null; then
  runners+=("arm64:qemu-aarch64 $tmp/arm64")
else
  echo "qemu-aarch64 not found: skipping arm64 (apt-get install qemu-user)"
fi
status=0
for s in $("$tmp/ref" list --names); do
  "$tmp/ref" run "$s" --format json "$@" > "$tmp/want.json"
  for r in "${runners[@]}"; do
    name=${r%%:*}
    ${r#*:} run "$s" --format json "$@" > "$tmp/got.json"
    if cmp -s "$tmp/want.json" "$tmp/got.json"; then
      echo "same  $name $s"
    else
      echo "DIFF  $name $s"; status=1
    fi
  done
done
exit $status
