# Shared by the test-dsbench-*.R files: the bundled sample's DSBench folder.
sample_dir <- function() system.file("extdata", "dsbench", package = "predictivebench")

# Behave as if rtiktoken were not installed, for the rest of the calling test (testthat
# 3.1.6 here has no local_mocked_bindings()).
local_no_tiktoken <- function(env = parent.frame()) {
  ns <- asNamespace("predictivebench")
  old <- get("tiktoken_installed", envir = ns)
  locked <- bindingIsLocked("tiktoken_installed", ns)
  if (locked) unlockBinding("tiktoken_installed", ns)
  assign("tiktoken_installed", function() FALSE, envir = ns)
  withr::defer({
    assign("tiktoken_installed", old, envir = ns)
    if (locked) lockBinding("tiktoken_installed", ns)
  }, envir = env)
}
