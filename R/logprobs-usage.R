# What log-probability requests cost, for both backends of query_logprobs(): each request's
# usage summed onto the first pair that needs it, so summing over pairs counts it once.
pair_usage <- function(n, owner, usage) {
  out <- tibble::tibble(input_tokens = rep(0, n), output_tokens = rep(0, n),
                        cost = rep(0, n))
  for (field in names(out)) {
    sums <- as.vector(tapply(usage[[field]], factor(owner, levels = seq_len(n)), sum))
    out[[field]] <- ifelse(seq_len(n) %in% owner, as.double(sums), 0)
  }
  out
}
