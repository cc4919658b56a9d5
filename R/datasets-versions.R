# The real benchmarks: every named version pinned to an immutable commit, one row per file.
#
# Sizes and sha256 come from the bytes at the pinned commits or the Git LFS pointer. An NA
# sha256 (bytes not available when the table was written) is recorded at the first download
# and verified on every later use (see fetch_version()).

no_licence <- function(repo) paste0("none declared (the ", repo, " repository has no licence)")

pinned_files <- function() {
  rows <- lapply(indexed_benchmarks(), function(b) b$data$versions)
  out <- do.call(rbind, unname(rows))
  out %||% no_pinned_files()
}

# The option `predictivebench.versions` replaces the table: how tests point the flow at
# fixtures, and how a user pins a version the package does not list.
versions_table <- function() {
  table <- getOption("predictivebench.versions")
  if (is.null(table)) return(pinned_files())
  needed <- names(pinned_files())
  if (!is.data.frame(table) || !all(needed %in% names(table))) {
    abort_pb(c("Option {.code predictivebench.versions} must be a data frame of pinned files.",
               i = "Columns: {.field {needed}}."), "argument")
  }
  tibble::as_tibble(table[needed])
}

version_files <- function(benchmark, version = NULL, call = rlang::caller_env()) {
  table <- versions_table()
  check_known_benchmark(benchmark, table, call)
  table <- table[table$benchmark == benchmark, , drop = FALSE]
  known <- unique(table$version)
  version <- version %||% unique(table$version[table$default])[1]
  if (!rlang::is_string(version) || !version %in% known) {
    near <- nearest_name(version, c(known, "sample"))
    abort_pb(
      c("{.val {version}} is not a version of {benchmark}.",
        i = if (length(near)) "Did you mean {.val {near[[1]]}}?",
        i = "Versions: {.val {c(known, 'sample')}}; see {.fn benchmark_versions}."),
      "argument", suggestion = if (length(near)) near[[1]] else NA_character_, call = call
    )
  }
  table[table$version == version, , drop = FALSE]
}

#' The pinned versions of the real benchmarks
#'
#' Every benchmark's real data comes in named versions, each pinned to a 40-hex commit of
#' the original repository on GitHub or Hugging Face. `benchmark_versions()` lists them, one
#' row per file, and says which are already in the local cache. `<bench>_dataset()` with no
#' data argument downloads and prepares the default version on first use (see
#' [fetch_benchmark()]); `version = "sample"` gives the small bundled sample instead.
#'
#' Sizes and sha256 come from the pinned bytes, except for the files **trusted on first
#' use** (`verified` is `"first use"`): the Hugging Face files of ProcessBench `hf` and
#' DSBench `v1`'s `data.zip`, whose bytes were not at hand when the versions were pinned.
#' What is pinned for those is the commit (the server's `X-Linked-Etag` is checked when it
#' sends one); their sha256 and size are recorded at the first download, once the
#' benchmark's flattener has accepted the file, shown here from then on, and every later copy
#' (a download after the cached file was deleted, a cached file changed on disk) that differs
#' is refused with an error of class `predictivebench_error_checksum`. Deleting the version's
#' folder in [datasets_dir()] deletes the record too.
#'
#' @param benchmark `NULL` for all, or a registered benchmark's name (`"futurex"`,
#'   `"processbench"`, `"deltabench"`, `"dsbench"`, `"arena"`, `"probsem"`, or one added with
#'   [new_benchmark()]).
#' `items` is the number of rows `<bench>_dataset(version = )` returns: questions
#' (FutureX, DSBench), solutions (ProcessBench, DeltaBench), contexts (probsem) and unique
#' questions (the arena: EloBench's `quora_100` lists 100 questions, one of them twice, so it
#' has 99 items). Each benchmark's bundled sample is listed too, as version `"sample"`, with
#' its file inside the installed package and no URL; a sample registered as a data frame
#' (with [new_benchmark()]) has no file, size or licence.
#'
#' @returns A tibble: `benchmark`, `version`, `default`, `items` (rows of the version's
#'   dataset), `licence`, `file`, `size` (bytes), `url`, `sha256`, `verified` (`"pinned"`:
#'   size and sha256 fixed in the package; `"first use"`: recorded at the first download, `NA`
#'   until then; `"bundled"`: a sample inside the package), `citation` and `cached` (the file
#'   is in the cache; always `TRUE` for a sample).
#' @family data
#' @export
#' @examples
#' benchmark_versions("futurex")
#' subset(benchmark_versions(), default)[c("benchmark", "version", "items", "licence")]
benchmark_versions <- function(benchmark = NULL) {
  check_string(benchmark, allow_null = TRUE)
  table <- versions_table()
  samples <- sample_versions()
  if (!is.null(benchmark)) {
    check_known_benchmark(benchmark, table)
    table <- table[table$benchmark == benchmark, , drop = FALSE]
    samples <- samples[samples$benchmark == benchmark, , drop = FALSE]
  }
  # a file trusted on first use shows the sha256 and size recorded at its first download
  rows <- lapply(seq_len(nrow(table)), function(i) table[i, ])
  pinned <- tibble::tibble(
    benchmark = table$benchmark, version = table$version, default = table$default,
    items = table$items, licence = table$licence, file = table$path,
    size = vapply(rows, expected_size, 1), url = redact_url(pinned_url(table)),
    sha256 = vapply(rows, expected_sha256, ""),
    verified = ifelse(is.na(table$sha256), "first use", "pinned"), citation = table$citation,
    cached = file.exists(raw_file_path(table))
  )
  bundled <- tibble::tibble(
    benchmark = samples$benchmark, version = rep("sample", nrow(samples)), default = FALSE,
    items = samples$items, licence = samples$licence, file = samples$file,
    size = samples$size, url = NA_character_, sha256 = NA_character_,
    verified = rep("bundled", nrow(samples)), citation = NA_character_, cached = TRUE
  )
  out <- rbind(pinned, bundled)
  out[order(match(out$benchmark, unique(c(pinned$benchmark, bundled$benchmark)))), ]
}

# A name neither registered nor in the table of versions is a typo until shown otherwise.
check_known_benchmark <- function(benchmark, table = versions_table(),
                                 call = rlang::caller_env()) {
  if (!is.null(benchmark_named(benchmark)) || benchmark %in% table$benchmark) {
    return(invisible(benchmark))
  }
  known <- sort(unique(c(names(Filter(benchmark_has_data, indexed_benchmarks())),
                         table$benchmark)))
  near <- nearest_name(benchmark, known)
  abort_pb(
    c("No benchmark {.val {benchmark}} is registered.",
      i = if (length(near)) "Did you mean {.val {near[[1]]}}?",
      i = "Benchmarks with data: {.val {known}}; see {.fn registered_benchmarks}."),
    "argument", suggestion = if (length(near)) near[[1]] else NA_character_, call = call
  )
}

# The names of `known` close enough to `name` to be what a typo meant, closest first (none
# when nothing is near): the "Did you mean" of every refused name.
nearest_name <- function(name, known) {
  if (!length(known) || !rlang::is_string(name)) return(character())
  distance <- drop(utils::adist(name, known, ignore.case = TRUE))
  known[order(distance)][sort(distance) <= max(2, nchar(name) %/% 3)]
}

sample_versions <- function() {
  samples <- Filter(function(s) !is.null(s$table),
                    lapply(indexed_benchmarks(), function(b) b$data$sample))
  in_package <- vapply(samples, function(s) rlang::is_string(s$table), TRUE,
                       USE.NAMES = FALSE)
  file <- vapply(samples, function(s) if (rlang::is_string(s$table)) s$table else
    NA_character_, "", USE.NAMES = FALSE)
  items <- vapply(samples, function(s) {
    as.integer(s$items %||% if (is.data.frame(s$table)) nrow(s$table) else NA)
  }, 1L, USE.NAMES = FALSE)
  tibble::tibble(
    benchmark = names(samples) %||% character(), file = file, items = items,
    size = vapply(file, function(f) {
      if (is.na(f)) NA_real_ else file.size(system.file(f, package = "predictivebench"))
    }, 1, USE.NAMES = FALSE),
    licence = ifelse(in_package, "MIT (made up for predictivebench)", NA_character_)
  )
}

# The download URL of each row: Hugging Face `/datasets/<id>/resolve/<commit>/<path>` under
# HF_ENDPOINT, GitHub `/<owner>/<repo>/<commit>/<path>` under PREDICTIVEBENCH_GITHUB_URL.
pinned_url <- function(rows) {
  hf <- sub("/+$", "", Sys.getenv("HF_ENDPOINT", "https://huggingface.co"))
  gh <- sub("/+$", "", Sys.getenv("PREDICTIVEBENCH_GITHUB_URL",
                                  "https://raw.githubusercontent.com"))
  ifelse(rows$host == "hf",
         paste0(hf, "/datasets/", rows$repo, "/resolve/", rows$commit, "/", rows$path),
         paste0(gh, "/", rows$repo, "/", rows$commit, "/", rows$path))
}
