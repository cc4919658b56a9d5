#!/usr/bin/env bash
# R CMD check of a freshly built tarball, tests left to `make test`. Fails on ERROR or WARNING.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
R CMD build --no-manual . > "$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
mv predictivebench_*.tar.gz "$out/"
( cd "$out" && _R_CHECK_FORCE_SUGGESTS_=false R CMD check --no-manual --no-tests predictivebench_*.tar.gz > check.log 2>&1 ) || true
# each NOTE, WARNING or ERROR with its details (up to the next check), then the status
awk '/^\* /{show = ($0 ~ /(NOTE|WARNING|ERROR)$/)} show; /^Status:/{print}' "$out/check.log"
if grep -qE "^Status: .*(ERROR|WARNING)" "$out/check.log" || ! grep -q "^Status:" "$out/check.log"; then
  cat "$out/check.log"
  exit 1
fi
