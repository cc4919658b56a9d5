# Small rules shared by the layers that reach the network (the request engine, the dataset
# downloads) and by those that add up what they cost.

now_seconds <- function() proc.time()[["elapsed"]]

# "scheme://host[:port]" of a URL (a string or httr2::url_parse() output).
url_origin <- function(url) {
  if (is.character(url)) url <- httr2::url_parse(url)
  paste0(url$scheme, "://", url$hostname, if (!is.null(url$port)) paste0(":", url$port))
}

zero_na <- function(x) {
  x <- as.double(x)
  x[is.na(x)] <- 0
  x
}

# The longest wait a server's Retry-After gets (seconds), in the request engine's retries and
# in the dataset downloads: a server asking for longer is told when to come back instead.
retry_after_cap_s <- 60
