#' @keywords internal
#' @rawNamespace if (getRversion() < "4.3.0") importFrom("S7", "@")
"_PACKAGE"
