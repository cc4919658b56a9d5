# Seeds: a scoped set.seed() that leaves the global RNG as it was, and the seed on a chat.

with_seed <- function(seed, code) {
  if (is.null(seed)) return(code)
  old <- if (exists(".Random.seed", globalenv())) get(".Random.seed", globalenv())
  on.exit({
    if (is.null(old)) rm(".Random.seed", envir = globalenv()) else
      assign(".Random.seed", old, envir = globalenv())
  })
  set.seed(seed)
  code
}

# The seed set on a chat with ellmer::params(seed = ), or NULL.
chat_seed <- function(chat) {
  tryCatch(chat$get_model_object()@params$seed, error = function(e) NULL)
}
