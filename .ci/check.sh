#!/usr/bin/env bash
# `R CMD check --as-cran` of a freshly built tarball, WITH the tests: they run here, on the
# installed tarball, and nowhere else in a CI run (.ci/run then reads their counts from the
# check's output instead of running them again).
#
# Fails on any ERROR or WARNING, and on any NOTE that the allow-list in .ci/check-notes.R does
# not name. Allowed are only notes the environment causes, each with exactly its own details:
#   - "CRAN incoming feasibility": the maintainer line / "New submission" of a package not
#     on CRAN (with a network; without one the check prints a Note_to_CRAN_maintainers);
#   - "future file timestamps": "unable to verify current time" (the time server needs a
#     network);
#   - "examples": over 5 s elapsed while under 5 s of CPU each (a busy shared machine);
#   - "HTML version of manual": no HTML Tidy or V8 on the machine.
# Never one about the package. The check's folder is kept in $CHECK_DIR when it is set (.ci/run reads the test
# counts from it), else removed.
#
# The environment of the check:
# - NOT_CRAN=true: the tests that CRAN would skip (processes killed mid-write, the installed
#   tarball, the demo) run in CI.
# - PREDICTIVEBENCH_SOURCE_DIR: the checkout. Tests that build the package, load it in a child
#   process or scan R/ find the sources there (tests/testthat/helper-source-tree.R); without
#   it they would skip under the check, where "../.." of the tests is no source tree.
# - PREDICTIVEBENCH_PYTHON_PATH unset: the Python module comes from the installed tarball.
# - _R_CHECK_CRAN_INCOMING_REMOTE_=false: the incoming checks that ask CRAN's servers (is the
#   name taken, are the URLs alive) need a network CI does not have; they would only time out.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$(pwd)
out=${CHECK_DIR:-}
if [ -z "$out" ]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
R CMD build --no-manual . > "$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
mv predictivebench_*.tar.gz "$out/"
status=0
( cd "$out" &&
  env -u PREDICTIVEBENCH_PYTHON_PATH NOT_CRAN=true PREDICTIVEBENCH_SOURCE_DIR="$src" \
    _R_CHECK_CRAN_INCOMING_REMOTE_=false _R_CHECK_FORCE_SUGGESTS_=true \
    R CMD check --as-cran --no-manual predictivebench_*.tar.gz > check.log 2>&1 ) || status=$?
Rscript --vanilla .ci/check-notes.R "$out/predictivebench.Rcheck/00check.log" || status=1
if [ "$status" -ne 0 ]; then
  tail -n 60 "$out/check.log"
  for f in "$out"/predictivebench.Rcheck/tests/*.Rout.fail; do
    [ -f "$f" ] && { echo "== $f (last 80 lines)"; tail -n 80 "$f"; }
  done
fi
exit "$status"
