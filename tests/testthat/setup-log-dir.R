# Tasks built without `dir` log to VITALS_LOG_DIR, or else to the user's data folder
# (tools::R_user_dir()): the tests never write there, so their logs go to a temporary folder.
# test-readme.R unsets it in a fresh process to check that default.
withr::local_envvar(
  VITALS_LOG_DIR = withr::local_tempdir(.local_envir = testthat::teardown_env()),
  .local_envir = testthat::teardown_env()
)
