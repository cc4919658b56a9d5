# Small rules shared by the layers that reach the network and those that add up its cost.

now_seconds <- function() proc.time()[["elapsed"]]

# "scheme://host[:port]" of a URL (a string or httr2::url_parse() output).
url_origin <- function(url) {
  if (is.character(url)) url <- httr2::url_parse(url)
  paste0(url$scheme, "://", url$hostname, if (!is.null(url$port)) paste0(":", url$port))
}

# `text` with every URL as it may be shown: a URL's userinfo and query values are credentials,
# each shown as "****".
shown_url <- function(text) {
  ok <- !is.na(text)
  out <- gsub("(://)[^/?#\\s]*@", "\\1****@", text[ok], perl = TRUE)
  queries <- gregexpr("://[^\\s?#]*\\?[^\\s#\"'<>]*", out, perl = TRUE)
  regmatches(out, queries) <- lapply(regmatches(out, queries), function(q) {
    gsub("([?&][^=&]*=)[^&]*", "\\1****", q, perl = TRUE)
  })
  text[ok] <- out
  text
}

# The credentials a URL holds (decoded): its user, its password and its query's values.
url_credentials <- function(url) {
  if (!is.character(url) || length(url) != 1L || is.na(url)) return(character())
  parts <- tryCatch(httr2::url_parse(url), error = function(e) NULL)
  as.character(unlist(c(parts$username, parts$password, parts$query)))
}

zero_na <- function(x) {
  x <- as.double(x)
  x[is.na(x)] <- 0
  x
}

# The longest Retry-After wait (seconds) in the engine's retries and dataset downloads; a
# server asking for longer is told when to come back instead.
retry_after_cap_s <- 60
