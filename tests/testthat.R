library(testthat)
library(predictivebench)

# CI (.ci/check.sh) names a second reporter, "summary": it writes each test file's name as the
# file starts, so a check that hangs or times out shows in tests/testthat.Rout where it was.
extra_reporter <- Sys.getenv("PREDICTIVEBENCH_TEST_REPORTER")
test_check("predictivebench", reporter = c(if (nzchar(extra_reporter)) extra_reporter, "check"))
