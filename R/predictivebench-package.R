#' @keywords internal
#' @rawNamespace if (getRversion() < "4.3.0") importFrom("S7", "@")
#' @importFrom R6 R6Class
#' @importFrom vitals Task
"_PACKAGE"

# S7 properties read with `@` look like free variables to R < 4.3's code checks.
utils::globalVariables(c(
  "base_url", "contents", "cost", "duration", "extra_args", "extra_headers",
  "finish_reason", "json", "name", "params", "role", "text", "thinking", "tokens"
))
