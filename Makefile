# The two commands of README.md: `make demo` and `make test`. Both install what is missing first.
PYTHON ?= /usr/bin/python3
export RETICULATE_PYTHON ?= $(PYTHON)
export PREDICTIVEBENCH_PYTHON_PATH ?= $(CURDIR)/inst/python
export NOT_CRAN = true

.PHONY: deps demo test test-python test-r check test-from-check docs

deps:
	@bash .ci/install-deps.sh

demo: deps
	@Rscript --vanilla .ci/demo.R

test: deps
	@Rscript --vanilla .ci/test.R

test-python: deps
	@$(PYTHON) -m pytest -q python/tests

test-r: deps
	@Rscript --vanilla -e 'testthat::test_local(".", stop_on_failure = TRUE)'

docs: deps
	@Rscript --vanilla -e 'roxygen2::roxygenise()'

# R CMD check --as-cran of the built tarball, tests included (run there on the installed package);
# fails on any ERROR, WARNING or NOTE the environment does not explain (.ci/check-notes.R).
# CHECK_DIR=<dir> keeps the check's folder.
check: deps
	@bash .ci/check.sh

# CI's second half (.ci/run): pytest, plus the R test counts of the check kept in CHECK_DIR,
# and the combined count line; the R tests are not run a second time.
test-from-check:
	@Rscript --vanilla .ci/test.R --r-from-check "$(CHECK_DIR)/predictivebench.Rcheck"
