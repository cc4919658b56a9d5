# The two commands of README.md: `make demo` and `make test`. Both install what is missing first.
PYTHON ?= /usr/bin/python3
export RETICULATE_PYTHON ?= $(PYTHON)
export PREDICTIVEBENCH_PYTHON_PATH ?= $(CURDIR)/inst/python
export NOT_CRAN = true

.PHONY: deps demo test test-python test-r check docs

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

# R CMD check without re-running the tests (`make test` runs them); fails on any WARNING or ERROR.
check: deps
	@bash .ci/check.sh
