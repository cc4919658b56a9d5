# The arena as a benchmark object, carrying the two kinds of log it writes itself. Its
# questions.csv is read by R (no Python flattener).

elobench_citation <- "EloBench, https://github.com/v-xchen-v/EloBench (commit 8b4c130)."

arena_versions <- function() {
  elo <- "v-xchen-v/EloBench"
  commit <- "8b4c13097bb95b5c461df76fe3d4d0cd95a53c59"
  pin <- c(host = "github", repo = elo, commit = commit)
  about <- function(items) {
    list(licence = no_licence(elo), citation = elobench_citation, items = items)
  }
  rbind(
    pinned_file("arena", "rwq", TRUE, pin, list(path = "data/rwq/questions.csv", size = 4022374,
        sha256 = "c71be292f2ed6cf27ca79d9267e351c3ca192a5bb290c36b4d8b093d6a4f461d"), about(20772)),
    pinned_file("arena", "rwq_200", FALSE, pin,
        list(path = "data/rwq_200/questions.csv", size = 35650,
        sha256 = "d1d304bf43adcb18e8d7f06b970793d0444f56d0bb9f121889cccc26383abf8e"), about(200)),
    pinned_file("arena", "quora_100", FALSE, pin,
        list(path = "data/quora_100/questions.csv", size = 8846,
        sha256 = "692119fbe31b297ccb74a6894ed3cd905fdb20728b769cd149c6b58397946edb"), about(99))
  )
}

arena_benchmark <- function() {
  arena <- new_benchmark(
    "arena", task = arena_task,
    summary = list(fn = "arena_summary", headline = NULL, by = "opponent",
                   interval = arena_interval),
    data = list(dataset = arena_dataset,
                # arena_task() judges against the reference answers bundled beside the sample
                sample = list(table = "extdata/arena/data/sample/questions.csv", items = 8L,
                              files = "extdata/arena"),
                versions = arena_versions(), prepare = prepare_arena),
    # EloBench's judge scores: a set without one is refused before it pays
    judging = list(needs_judge = TRUE, check_by_name = check_arena_by_name)
  )
  # read by the name their logs' headers give (benchmark_named()); not in the index
  arena$kinds <- arena_log_kinds()
  arena
}

# rescore(): the pairwise judge, against the reference answers arena_task() bundles
#' @export
benchmark_rescore.arena_benchmark <- function(benchmark, judge, ...) {
  arena_scorer(scorer_chat = judge)
}

# The arena's two other kinds of log: a judging task's (arena_judge_task(), each model's win
# rate; the models depend on the data) and an arena_run()'s (each competitor's rating, on the
# Elo scale), by kind (the header's `predictivebench_kind`, log_kind()).
arena_log_kinds <- function() {
  list(
    battles = new_benchmark("arena_battles",
                            summary = list(fn = "arena_win_rates", headline = NULL, by = "model",
                                           interval = arena_win_rate_interval)),
    ratings = new_benchmark(
      "arena_ratings",
      summary = list(fn = "arena_rating_rows", headline = NULL, by = "model",
                     interval = arena_rating_interval, elo_scale = "rating"),
      # rescore(): the run's battles judged again, rated as the run rated them (arena-rescore.R)
      judging = list(rescore_run = arena_rescore_run)
    )
  )
}

# The arena by name judges each model against the reference answers arena_task() bundles,
# which are the sample's: no question of a real version has one, so each such cell could
# only stop (arena_task() refuses before solving). Refused here, before any cell runs.
check_arena_by_name <- function(x, version, call) {
  if (is_sample(version)) return(invisible())
  abort_pb(
    c("The arena by name ({.val {x}}) has no reference answers for its questions: the ones
       {.fn arena_task} bundles are for {.val arena@sample} only, so no battle could be judged.",
      i = "Give the task with its reference answers, e.g. {.code benchmarks = list(arena =
           arena_task(arena_dataset(), answers = \"{elobench_answers_file}\"))} (an EloBench answer
           cache), or use {.val arena@sample}.",
      i = "To rank the set's models against each other, end the set with
           {.code arena = list(...)} (an {.fn arena_run})."),
    "answers", field = "benchmarks", call = call
  )
}
