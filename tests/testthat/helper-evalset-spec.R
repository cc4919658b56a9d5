# A chat primed with few-shot turns: a worked question and its answer before the real one.
few_shot_turns <- function() {
  list(ellmer::UserTurn(list(ellmer::ContentText("FEWSHOT-Q: What is 1 + 1?"))),
       ellmer::AssistantTurn(list(ellmer::ContentText("FEWSHOT-A: \\boxed{2}"))))
}

primed_chat <- function(server, model = "m1", ...) {
  chat <- fake_chat(server, model = model, ...)
  chat$set_turns(few_shot_turns())
  chat
}

# Whether a request body carries the few-shot turns.
has_few_shot <- function(body) {
  json <- as.character(jsonlite::toJSON(body, auto_unbox = TRUE))
  grepl("FEWSHOT-Q", json, fixed = TRUE) && grepl("FEWSHOT-A", json, fixed = TRUE)
}

# The files under `dirs` (hidden ones included) whose bytes contain `secret`.
files_holding <- function(secret, dirs) {
  files <- unlist(lapply(dirs, list.files, recursive = TRUE, all.files = TRUE,
                         full.names = TRUE))
  files[vapply(files, function(f) {
    length(grepRaw(secret, readBin(f, "raw", file.size(f)), fixed = TRUE)) > 0
  }, TRUE)]
}

# Waits until `n` daemons are connected (mirai::daemons() returns before they are), so that
# mirai::everywhere() reaches each of them.
wait_for_daemons <- function(n, timeout = 60) {
  deadline <- Sys.time() + timeout
  while (mirai::info()[["connections"]] < n) {
    if (Sys.time() > deadline) testthat::fail(paste("Fewer than", n, "daemons connected."))
    Sys.sleep(0.1)
  }
}

# A decoy key in every daemon's environment: what a worker must never send to a host it
# was not given for.
set_daemon_decoy_key <- function(n, key = "sk-DECOY-worker-env-key") {
  wait_for_daemons(n)
  mirai::everywhere(Sys.setenv(OPENAI_API_KEY = key), .args = list(key = key), .min = n)[]
  invisible(key)
}

daemon_pids <- function(n) {
  wait_for_daemons(n)
  unique(unlist(mirai::everywhere(Sys.getpid(), .min = n)[]))
}
