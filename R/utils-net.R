# Small rules shared by the layers that reach the network (the request engine, the dataset
# downloads) and by those that add up what they cost.

now_seconds <- function() proc.time()[["elapsed"]]

# "scheme://host[:port]" of a URL (a string or httr2::url_parse() output).
url_origin <- function(url) {
  if (is.character(url)) url <- httr2::url_parse(url)
  paste0(url$scheme, "://", url$hostname, if (!is.null(url$port)) paste0(":", url$port))
}

# `text` with every URL in it as it may be shown (a model's name, a message, a log): the
# userinfo of a URL ("https://team:<password>@gateway", "https://<token>@host") and the values
# of its query ("?key=...") are credentials, each shown as "****".
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

# The longest wait a server's Retry-After gets (seconds), in the request engine's retries and
# in the dataset downloads: a server asking for longer is told when to come back instead.
retry_after_cap_s <- 60
