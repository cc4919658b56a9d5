test_that("path_inside() keeps names inside their folder, links resolved", {
  skip_on_os("windows")  # symbolic links
  dir <- withr::local_tempdir()
  root <- file.path(dir, "root")
  dir.create(file.path(root, "sub"), recursive = TRUE)
  writeLines("x", file.path(root, "sub", "a.txt"))
  writeLines("secret", file.path(dir, "secret.txt"))
  real_root <- normalizePath(root)
  expect_identical(path_inside(root, "sub/a.txt"), file.path(real_root, "sub", "a.txt"))
  # A name that does not exist yet is resolved through the folders that do.
  expect_identical(path_inside(root, "sub/new.txt"), file.path(real_root, "sub", "new.txt"))
  for (name in c("../secret.txt", "sub/../../secret.txt", "sub/../a.txt", "/etc/passwd",
                 "\\\\server\\share", "C:x", "", NA_character_)) {
    expect_null(path_inside(root, name))
  }
  expect_null(path_inside(root, c("a", "b")))
  file.symlink(file.path(dir, "secret.txt"), file.path(root, "out.txt"))
  file.symlink(dir, file.path(root, "up"))
  file.symlink(file.path(root, "sub", "a.txt"), file.path(root, "in.txt"))
  expect_null(path_inside(root, "out.txt"))
  expect_null(path_inside(root, "up/secret.txt"))
  expect_null(path_inside(root, "up/missing.txt"))
  expect_identical(path_inside(root, "in.txt"), file.path(real_root, "sub", "a.txt"))
  # A root that is itself reached through a link is fine.
  file.symlink(root, file.path(dir, "alias"))
  expect_identical(path_inside(file.path(dir, "alias"), "sub/a.txt"),
                   file.path(real_root, "sub", "a.txt"))
  # A folder whose name starts like the root's is not inside it.
  dir.create(file.path(dir, "root2"))
  expect_false(is_within(normalizePath(file.path(dir, "root2")), real_root))
})

test_that("check_path_inside() names where the name came from", {
  root <- withr::local_tempdir()
  error <- expect_error(
    check_path_inside(root, "../x", "image", file = "t.parquet", row = 3, field = "image_used"),
    class = "predictivebench_error_path"
  )
  expect_identical(error$file, "t.parquet")
  expect_identical(error$row, 3)
  expect_identical(error$field, "image_used")
})

test_that("portable_file_name() keeps names portable, short and distinct", {
  spaced <- portable_file_name(c("arena", "careful vs brief vs echo"), ".json")
  expect_equal(spaced, "arena_careful-vs-brief-vs-echo.json")
  expect_false(grepl("[ /\\\\]", portable_file_name("a/b\\c d:e")))

  models <- paste0("openrouter/some-provider/a-very-long-model-identifier-", 1:8, "-instruct")
  long <- portable_file_name(c("2026-11-26T10-00-00+00-00", paste(models, collapse = " vs ")),
                             ".json", max_part = 200L)
  expect_lte(nchar(long, type = "bytes"), 255)
  expect_match(long, "\\.json$")
  other <- portable_file_name(c("2026-11-26T10-00-00+00-00",
                                paste(rev(models), collapse = " vs ")), ".json", max_part = 200L)
  expect_false(identical(long, other))
  expect_identical(long, portable_file_name(c("2026-11-26T10-00-00+00-00",
                                              paste(models, collapse = " vs ")),
                                            ".json", max_part = 200L))
  expect_equal(portable_file_name("..."), "x")
  expect_lte(nchar(portable_file_name(strrep("\u00e9", 300)), type = "bytes"), 255)
})
