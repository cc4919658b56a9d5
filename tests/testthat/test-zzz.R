test_that("loading the package ran every file's registrations", {
  expect_true(all(c("futurex", "dsbench", "processbench", "deltabench", "probsem", "arena") %in%
                    registered_benchmarks()$name))
})

test_that(".onLoad() is harmless once the registrations have run", {
  before <- registered_benchmarks()
  expect_no_warning(.onLoad(NULL, "predictivebench"))
  expect_identical(registered_benchmarks(), before)
})
