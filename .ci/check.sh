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
# - PREDICTIVEBENCH_TEST_REPORTER=summary: tests/testthat.R adds testthat's summary reporter,
#   which writes each test file's name as it starts (tests/testthat.Rout), so a hang names its file.
#
# Nothing is run twice. `R CMD build` installs the package and knits every vignette (an error
# in a chunk fails the build), so the check gets --no-vignettes: it would otherwise knit them
# all again ("re-building of vignette outputs") and run their tangled code a third time ("running
# R code from vignettes"). Its static vignette checks (sources, inst/doc outputs, dependencies)
# still run.
#
# The output: each line of the build and of the check, stamped with the time it came (so a slow
# or timed-out run shows where its time went). The check runs under `timeout` ($CHECK_TIMEOUT
# seconds, 4800 unless set; .ci/run gives it what is left of CI's limit): when it fires, the
# last check step and the last test file reached are printed, with the tail of the tests' output.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$(pwd)
out=${CHECK_DIR:-}
if [ -z "$out" ]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
limit=${CHECK_TIMEOUT:-4800}
stamp() { while IFS= read -r line; do printf '[%(%H:%M:%S)T] %s\n' -1 "$line"; done; }

# The test file a timed-out check was in: the last "<context>: " line of the summary reporter
# whose context is a test file's (test-arena-run.R starts "arena-run: ").
last_test_file() {
  local rout=$1 tests=$2 context
  grep -oE '^[[:alnum:]._-]+: ' "$rout" | tac | while IFS= read -r context; do
    context=${context%: }
    if [ -f "$tests/test-$context.R" ]; then echo "test-$context.R"; break; fi
  done || true
}

# The vignettes run here only, so with the environment the check had for them: the Python
# module from the package being built, not from the checkout.
env -u PREDICTIVEBENCH_PYTHON_PATH R CMD build --no-manual . 2>&1 | tee "$out/build.log" | stamp ||
  exit 1
mv predictivebench_*.tar.gz "$out/"
status=0
( cd "$out" &&
  env -u PREDICTIVEBENCH_PYTHON_PATH NOT_CRAN=true PREDICTIVEBENCH_SOURCE_DIR="$src" \
    PREDICTIVEBENCH_TEST_REPORTER=summary \
    _R_CHECK_CRAN_INCOMING_REMOTE_=false _R_CHECK_FORCE_SUGGESTS_=true \
    timeout --kill-after=60 "$limit" \
    R CMD check --as-cran --no-manual --no-vignettes predictivebench_*.tar.gz 2>&1 ) |
  tee "$out/check.log" | stamp || status=$?
rcheck="$out/predictivebench.Rcheck"
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
  echo "== R CMD check TIMED OUT after $limit s, in: $(grep '^\* ' "$out/check.log" | tail -n 1)"
  rout=$(ls -t "$rcheck"/tests/testthat.Rout* 2>/dev/null | head -n 1 || true)
  if [ -n "$rout" ]; then
    echo "== last test file reached: $(last_test_file "$rout" "$rcheck/tests/testthat")"
    echo "== $rout (last 40 lines)"
    tail -n 40 "$rout"
  fi
  exit "$status"
fi
Rscript --vanilla .ci/check-notes.R "$rcheck/00check.log" || status=1
if [ "$status" -ne 0 ]; then
  for f in "$rcheck"/tests/*.Rout.fail; do
    [ -f "$f" ] && { echo "== $f (last 80 lines)"; tail -n 80 "$f"; }
  done
fi
exit "$status"
