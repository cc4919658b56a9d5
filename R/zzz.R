# Registrations made with rlang::on_load() in any file (such as new_benchmark() calls)
# run when the package loads, whatever order the files are collated in.
.onLoad <- function(libname, pkgname) {
  # run_on_load() warns when nothing was registered
  if (exists(".__rlang_hook__.", envir = topenv(), inherits = FALSE)) rlang::run_on_load()
}
