# Evaluation sets against the fake server: every model answers "\boxed{A}"; the model named
# "broken" gets HTTP 500 (a transient error, given up after max_tries) for every request.
local_set_server <- function(latency = 0, .local_envir = parent.frame()) {
  local_fake_openai(function(body, n) {
    if (identical(body$model, "broken")) return(list(status = 500))
    "\\boxed{A}"
  }, latency = latency, .local_envir = .local_envir)
}

set_chats <- function(server, models) {
  chats <- lapply(models, function(m) fake_chat(server, model = m))
  names(chats) <- NULL
  chats
}

# Settings of a quick set: its own cache, one try per request, no rate limit.
set_settings <- function(cache, ...) {
  request_settings(cache = cache, rpm = Inf, ..., retry = list(max_tries = 1, backoff = 0))
}

# The benchmarks of most set tests: two bundled samples, cut to 3 samples each.
set_benchmarks_sample <- c("futurex@sample", "processbench@sample")

quiet_set <- function(...) suppressMessages(suppressWarnings(eval_set(...)))

# A benchmark object built from its parts and never registered: two sums, scored exactly.
toy_set_benchmark <- function(name = "pbt-toyobj") {
  questions <- data.frame(id = c("q1", "q2"), input = c("1 + 1?", "2 + 2?"), target = c("2", "4"))
  summary <- function(x) {
    grouped_summary(as.numeric(benchmark_samples(x, "score", "a toy task.")$score),
                    metric = "accuracy")
  }
  task <- function(dataset, dir) {
    scorer <- function(samples, ...) list(score = as.numeric(samples$result == samples$target))
    benchmark_task(dataset, vitals::generate(), scorer, dir = dir, benchmark = name)
  }
  new_benchmark(name, list(fn = summary), task = task,
                data = list(schema = data.frame(name = c("id", "input", "target"),
                                                type = "string"), sample = questions))
}
