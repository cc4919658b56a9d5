# Cells on local mirai daemons (which the test starts: the package never does). Each daemon
# loads this package and has an OPENAI_API_KEY of its own, which a set never sends: a chat's
# credentials come with it from the calling process.
local_daemons <- function(n, .local_envir = parent.frame()) {
  skip_if_not_installed("mirai")
  mirai::daemons(n)
  withr::defer(mirai::daemons(0), envir = .local_envir)
  path <- normalizePath(testthat::test_path("..", ".."))
  mirai::everywhere({
    if (file.exists(file.path(path, "DESCRIPTION")) && requireNamespace("pkgload", quietly = TRUE)) {
      pkgload::load_all(path, quiet = TRUE, helpers = FALSE, export_all = FALSE)
    } else {
      loadNamespace("predictivebench")
    }
    Sys.setenv(OPENAI_API_KEY = "sk-test-worker-env")
  }, .args = list(path = path))[]
  invisible(n)
}
