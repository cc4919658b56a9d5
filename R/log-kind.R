# What a log holds, read from its header: "samples" (a benchmark's task), or a kind of log a
# benchmark writes itself, named by `eval.metadata.predictivebench_kind` (the arena's
# "battles", a judging task's, and "ratings", an arena_run()'s). Logs written before the
# field carry the kind in their benchmark's name only.
log_kind <- function(header) {
  meta <- header$eval$metadata
  kind <- meta$predictivebench_kind
  if (rlang::is_string(kind)) return(kind)
  switch(meta$benchmark %||% "", arena_battles = "battles", arena_ratings = "ratings", "samples")
}
