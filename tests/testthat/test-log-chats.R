# The translator of chats into log samples (R/log-chats.R), against its oracle: vitals' own
# log of the same chats.
# Known differences (each is ours on purpose): ids (no R random stream) and timestamps; long
# texts as attachments (condense_sample()); events: no sample_init, solver steps, `state`
# nor the model events' `call`, their messages content and role only, tool definitions not
# repeated; exact scores,
# flat metadata and every request's usage (log_sample()).
source(test_path("oracle-chats.R"), local = TRUE)

resolved <- function(x, pool) {
  if (is.character(x) && length(x) == 1 && startsWith(x, "attachment://")) {
    key <- sub("attachment://", "", x, fixed = TRUE)
    return(pool[[names(pool)[startsWith(names(pool), key)][[1]]]])
  }
  if (!is.list(x)) return(x)
  out <- lapply(x, resolved, pool = pool)
  names(out) <- names(x)
  out
}

without_ids <- function(x) {
  if (!is.list(x)) return(if (is.numeric(x)) as.double(x) else x)
  x$id <- NULL
  if (identical(names(x), c("type", "text"))) return(x)
  out <- lapply(x, without_ids)
  names(out) <- names(x)
  if (is.list(out$content)) out$content <- one_text(out$content)
  out
}

comparable <- function(sample) {
  sample <- resolved(sample, sample$attachments)
  events <- Filter(function(e) e$event %in% c("model", "tool", "score"), sample$events)
  list(input = sample$input, messages = without_ids(sample$messages),
       answer = sample$scores[[1]]$answer,
       grading = without_ids(sample$scores[[1]]$metadata$grading),
       events = vapply(events, function(e) e$event, ""),
       outputs = lapply(events, function(e) {
         without_ids(e$output$choices[[1]]$message[c("content", "tool_calls", "role")])
       }),
       tools = lapply(events, function(e) e[c("function", "arguments", "result")]))
}

for (judged in c(FALSE, TRUE)) {
  test_that(paste("samples of every chat shape are vitals' own", if (judged) "(judged)"), {
    server <- local_fake_openai(shape_reply)
    judge <- if (judged) fake_chat(server, "judge-model")
    dir <- withr::local_tempdir()
    plain <- vitals::Task$new(shape_dataset(), shape_solver, shape_scorer(judge), dir = dir)
    suppressMessages(plain$eval(solver_chat = fake_chat(server), view = FALSE))
    theirs <- jsonlite::read_json(list.files(dir, full.names = TRUE))$samples
    samples <- plain$get_samples()
    ours <- log_samples_of(samples, "shape_scorer(judge)", list(solve = list(started_at = Sys.time())))
    ours <- lapply(ours, function(s) jsonlite::parse_json(sample_json(s)))
    expect_length(ours, length(theirs))
    for (i in seq_along(ours)) {
      expect_identical(comparable(ours[[i]]), comparable(theirs[[i]]), label = shapes[[i]])
      expect_equal(names(ours[[i]]$scores), names(theirs[[i]]$scores))
    }
    # vitals' reader gives our log's chats back as it gives its own
    tsk <- ResultsTask$new(shape_dataset(), shape_solver, shape_scorer(judge),
                           benchmark = "futurex", metrics = list(mean = mean),
                           dir = withr::local_tempdir())
    suppressMessages(tsk$eval(solver_chat = fake_chat(server), view = FALSE))
    read <- function(path) {
      chats <- vitals::vitals_log_read(path, solver_chat = fake_chat(server),
                                       scorer_chat = fake_chat(server, "judge-model"))$solver_chat
      lapply(chats, function(chat) {
        lapply(chat$get_turns(), function(t) c(t@role, t@text))
      })
    }
    expect_identical(read(tsk$log_path), read(list.files(dir, full.names = TRUE)))
    expect_inspect_valid(tsk$log_path)
  })
}
