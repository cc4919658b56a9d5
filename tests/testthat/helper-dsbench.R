# Shared by the test-dsbench-*.R files: the bundled sample's DSBench folder.
sample_dir <- function() system.file("extdata", "dsbench", package = "predictivebench")
