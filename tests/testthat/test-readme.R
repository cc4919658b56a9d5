# First contact: the README's R snippets. The first runs as written, in a fresh R process
# with no VITALS_LOG_DIR; one that needs a network and a key runs with only the model and
# the data swapped for offline ones; the others install the package.

readme_snippets <- function() {
  readme <- testthat::test_path("..", "..", "README.md")
  skip_if_not(file.exists(readme), "README.md is not beside the tests (an installed package)")
  lines <- readLines(readme, encoding = "UTF-8")
  starts <- which(lines == "```r")
  lapply(starts, function(start) {
    end <- start + which(lines[-seq_len(start)] == "```")[[1]]
    lines[(start + 1):(end - 1)]
  })
}

readme_first_snippet <- function() readme_snippets()[[1]]

# The real benchmark and a real model swapped for the bundled sample and an offline chat;
# every other line as written.
offline_swaps <- c(
  "futurex_task()" = "futurex_task(futurex_dataset(version = \"sample\"))",
  "ellmer::chat_openai(model = \"gpt-4.1\")" =
    "baseline_chat(choices = c(\"A\", \"B\", \"Yes\", \"No\"), template = \"\\\\boxed{%s}\")"
)

needs_network <- function(lines) {
  any(vapply(names(offline_swaps), function(from) any(grepl(from, lines, fixed = TRUE)), TRUE))
}

offline_snippet <- function(lines) {
  for (from in names(offline_swaps)) {
    lines <- gsub(from, offline_swaps[[from]], lines, fixed = TRUE)
  }
  lines
}

installs <- function(lines) any(grepl("pak::pak(", lines, fixed = TRUE))

# A snippet for the reader's own server (vLLM, llama-server, Ollama on localhost): no such
# server runs here, so it is parsed, not run.
needs_own_server <- function(lines) any(grepl("http://localhost:", lines, fixed = TRUE))

test_that("every R snippet of the README runs: as written, or offline for a real model", {
  snippets <- readme_snippets()
  expect_false(needs_network(snippets[[1]]))
  expect_true(any(grepl("baseline_chat(", snippets[[1]], fixed = TRUE)))
  withr::local_envvar(VITALS_LOG_DIR = withr::local_tempdir())
  ran <- 0L
  for (lines in snippets[-1]) {
    if (installs(lines)) next
    if (needs_own_server(lines)) {
      expect_no_error(parse(text = lines))
      next
    }
    # a snippet for a real model: only the model and the data are swapped
    expect_true(needs_network(lines))
    env <- new.env(parent = globalenv())
    suppressMessages(eval(parse(text = offline_snippet(lines)), env))
    expect_true(file.exists(env$tsk$log_path))
    ran <- ran + 1L
  }
  expect_gte(ran, 1L)
})

test_that("the README's first snippet logs where vitals_view() finds it, with no log dir set", {
  # as written: no swap
  lines <- readme_first_snippet()
  expect_true(any(grepl("vitals::vitals_view()", lines, fixed = TRUE)))
  root <- normalizePath(testthat::test_path("..", ".."))
  user_data <- withr::local_tempdir()
  work <- withr::local_tempdir()
  run <- function(root, code, work) {
    setwd(work)
    messages <- character()
    said <- 0L
    withCallingHandlers({
      # the source tree under test (the installed package under R CMD check)
      if (file.exists(file.path(root, "DESCRIPTION"))) {
        pkgload::load_all(root, quiet = TRUE, export_all = FALSE)
      }
      exprs <- parse(text = code)
      env <- globalenv()
      for (e in exprs) withVisible(eval(e, env))
      # a second task in the same session: the folder is not announced again
      futurex_task(futurex_dataset(version = "sample"))
    }, message = function(m) {
      if (inherits(m, "predictivebench_message_log_dir")) said <<- said + 1L
      messages <<- c(messages, conditionMessage(m))
    })
    tsk <- get("tsk", globalenv())
    list(log_path = tsk$log_path, log_dir = vitals::vitals_log_dir(), said = said,
         expected = file.path(tools::R_user_dir("predictivebench", "data"), "logs"),
         # vitals reads it back (it rebuilds each sample's chat from the one it is given)
         read = nrow(vitals::vitals_log_read(tsk$log_path, solver_chat = baseline_chat("x"))),
         n = nrow(tsk$get_samples()),
         messages = messages, work_files = list.files(work, recursive = TRUE))
  }
  out <- withr::with_envvar(
    c(VITALS_LOG_DIR = NA, R_USER_DATA_DIR = user_data),
    callr::r(run, list(root = root, code = paste(lines, collapse = "\n"), work = work))
  )
  expected <- file.path(normalizePath(user_data), "R", "predictivebench", "logs")
  expect_equal(normalizePath(out$expected), expected)
  expect_equal(normalizePath(out$log_dir), expected)
  expect_equal(normalizePath(dirname(out$log_path)), expected)
  expect_true(file.exists(out$log_path))
  expect_equal(out$read, out$n)
  expect_equal(out$said, 1L)
  expect_true(any(grepl(expected, out$messages, fixed = TRUE)))
  # the viewer started on that folder, and nothing was written to the working directory
  expect_true(any(grepl("Inspect Viewer running", out$messages)))
  expect_length(out$work_files, 0)
  expect_false(dir.exists(file.path(work, "NA")))
})

test_that("VITALS_LOG_DIR, when set, is where tasks log, without a word", {
  logs <- withr::local_tempdir()
  withr::local_envvar(VITALS_LOG_DIR = logs)
  expect_no_message(tsk <- futurex_task(futurex_dataset(version = "sample")),
                    class = "predictivebench_message_log_dir")
  expect_equal(tsk$dir, logs)
  expect_equal(resolve_log_dir(NA_character_), logs)
  expect_equal(resolve_log_dir("elsewhere"), "elsewhere")
  expect_error(resolve_log_dir(c("a", "b")), class = "predictivebench_error_argument")
})
