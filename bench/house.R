# The house, measured (issue 45): size, arguments, circles of files, reaches into vitals'
# and ellmer's private state, and the engine's calls up into the evaluation sets, read from
# the parse trees of R/*.R (base R only). Each figure is printed beside the issue's target.
#
#   Rscript bench/house.R [root]      # root: the package's folder, "." by default
#
# What counts as what (each rule is a static reading of the code, so it can miss code that
# builds names at run time; such lookups are listed as "dynamic"):
# * comment lines: lines holding only a code comment (roxygen `#'` lines are documentation);
# * a function: a top-level `name <- function(...)` or a method of a top-level R6 class;
#   its arguments are its formals, `...` included;
# * an exported constructor: an export named `new_*`, `*_task`, `*_solver`, `*_scorer`,
#   `*_settings` or `*_chat` (what a user builds and hands on);
# * file A calls file B when A's code calls or names a function (or an R6/S7 class) defined
#   at top level in B and not bound locally in A's code; a layer is the file-name prefix;
#   a circle is a strongly connected component of three or more files of one layer;
# * a private reach: `pkg:::f`; a namespace lookup (`get()`, `get0()`, `exists()`,
#   `getFromNamespace()`, `ns$f`) of an object the package does not export, directly or
#   through a helper that does the lookup for a name it is given; an R6 private environment
#   (`.__enclos_env__`), a field or method read or replaced through it, through a helper that
#   returns it, or through `private` in a class inheriting the dependency's class (`super$`
#   of a private method, a private method overridden, `private` passed out of the class);
#   a class generator's `$private_methods`/`$private_fields`; the variables of vitals'
#   `logged()` closure (`environment(step)$fn`);
# * the compat file of a dependency is `R/*-compat-<dependency>.R`.

# tests/testthat/test-house.R sources this file with `house_root` set and reads its figures.
args <- commandArgs(trailingOnly = TRUE)
root <- if (exists("house_root", inherits = FALSE)) house_root else if (length(args)) args[[1]] else "."
if (!file.exists(file.path(root, "DESCRIPTION")) || !dir.exists(file.path(root, "R"))) {
  stop("Run from the package's folder (or give it): no DESCRIPTION and R/ in ", root)
}
started <- proc.time()[["elapsed"]]

files <- sort(list.files(file.path(root, "R"), pattern = "[.][Rr]$", full.names = TRUE))
base <- basename(files)
layer_of <- function(file) sub("-.*$", "", sub("[.][Rr]$", "", basename(file)))
deps <- c("vitals", "ellmer")
compat_files <- stats::setNames(lapply(deps, function(d) {
  base[grepl(paste0("-compat-", d, "[.][Rr]$"), base)]
}), deps)

# ---- reading ---------------------------------------------------------------------------------

exprs <- lapply(files, parse, keep.source = TRUE)
names(exprs) <- base
line_count <- vapply(files, function(f) length(readLines(f, warn = FALSE)), 1L)
comment_lines <- vapply(exprs, function(e) {
  pd <- utils::getParseData(e)
  if (is.null(pd)) return(0L)
  code <- unique(pd$line1[pd$terminal & pd$token != "COMMENT"])
  comments <- pd[pd$token == "COMMENT" & !startsWith(pd$text, "#'"), ]
  length(setdiff(unique(comments$line1), code))
}, 1L)
exports <- sub("^export\\((.*)\\)$", "\\1",
               grep("^export\\(", readLines(file.path(root, "NAMESPACE")), value = TRUE))

is_assign <- function(x) {
  is.call(x) && length(x) == 3 && (identical(x[[1]], as.name("<-")) ||
                                     identical(x[[1]], as.name("=")))
}
is_fun <- function(x) is.call(x) && identical(x[[1]], as.name("function"))
head_name <- function(x) {
  h <- x[[1]]
  if (is.name(h)) return(as.character(h))
  if (is.call(h) && (identical(h[[1]], as.name("::")) || identical(h[[1]], as.name(":::")))) {
    return(as.character(h[[3]]))
  }
  ""
}
is_class_call <- function(x) {
  is.call(x) && head_name(x) %in% c("R6Class", "new_class", "new_generic", "new_S3_class")
}
# The value a top-level `local({...})` returns is its last expression.
defines_function <- function(value) {
  if (is_fun(value) || is_class_call(value)) return(TRUE)
  if (is.call(value) && head_name(value) == "local" && length(value) >= 2) {
    body <- value[[2]]
    last <- if (is.call(body) && identical(body[[1]], as.name("{"))) body[[length(body)]] else body
    return(is_fun(last))
  }
  FALSE
}
# An R6Class call's class lists (public, private, active) and what it inherits.
r6_parts <- function(x) {
  if (!is.call(x) || head_name(x) != "R6Class") return(NULL)
  args <- as.list(x)[-1]
  lists <- lapply(args[c("public", "private", "active")], function(a) {
    if (is.call(a) && head_name(a) == "list") as.list(a)[-1] else list()
  })
  names(lists) <- c("public", "private", "active")
  inherit <- args$inherit
  list(lists = lists, inherit = if (!is.null(inherit)) paste(deparse(inherit), collapse = ""))
}
inherit_dep <- function(inherit) {
  if (is.null(inherit)) return(NA_character_)
  dep <- sub("::.*$", "", inherit)
  if (dep %in% deps) dep else NA_character_
}

# Every top-level definition: name, file, formals (functions and R6 methods).
defs <- list()
funs <- list()
for (f in base) {
  for (e in exprs[[f]]) {
    if (!is_assign(e) || !is.name(e[[2]])) next
    name <- as.character(e[[2]])
    value <- e[[3]]
    if (defines_function(value)) defs[[length(defs) + 1]] <- data.frame(name = name, file = f)
    if (is_fun(value)) {
      funs[[length(funs) + 1]] <- data.frame(name = name, file = f, args = length(value[[2]]))
    }
    parts <- r6_parts(value)
    if (!is.null(parts)) {
      for (kind in names(parts$lists)) for (m in names(parts$lists[[kind]])) {
        v <- parts$lists[[kind]][[m]]
        if (is_fun(v)) {
          funs[[length(funs) + 1]] <- data.frame(name = paste0(name, "$", m), file = f,
                                                 args = length(v[[2]]))
        }
      }
    }
  }
}
defs <- do.call(rbind, defs)
funs <- do.call(rbind, funs)
def_file <- tapply(defs$file, defs$name, function(x) x[[length(x)]])  # collate order: last wins

# ---- walking -----------------------------------------------------------------------------------

# Names a piece of code binds: formals of every function in it, assignment targets, loop
# variables.
bound_names <- function(x) {
  out <- character()
  walk <- function(x) {
    if (!is.call(x)) return()
    if (is_fun(x)) out <<- c(out, names(x[[2]]))
    if ((is_assign(x) || identical(x[[1]], as.name("<<-"))) && is.name(x[[2]])) {
      out <<- c(out, as.character(x[[2]]))
    }
    if (identical(x[[1]], as.name("for"))) out <<- c(out, as.character(x[[2]]))
    for (i in seq_along(x)) if (!missing_arg(x[[i]])) walk(x[[i]])
  }
  walk(x)
  unique(out)
}
missing_arg <- function(x) identical(x, quote(expr = ))

# Names a piece of code calls or refers to (not `pkg::f`, nor a field after `$` or `@`), and
# names given as strings to do.call()/match.fun().
referenced_names <- function(x) {
  out <- new.env(hash = TRUE, parent = emptyenv())
  walk <- function(x) {
    if (is.call(x)) {
      h <- x[[1]]
      if (identical(h, as.name("::")) || identical(h, as.name(":::"))) return()
      if (identical(h, as.name("$")) || identical(h, as.name("@"))) return(walk(x[[2]]))
      if (identical(h, as.name("do.call")) || identical(h, as.name("match.fun"))) {
        if (length(x) >= 2 && is.character(x[[2]]) && length(x[[2]]) == 1) out[[x[[2]]]] <- TRUE
      }
      for (i in seq_along(x)) if (!missing_arg(x[[i]])) walk(x[[i]])
    } else if (is.name(x)) {
      name <- as.character(x)
      if (nzchar(name)) out[[name]] <- TRUE
    }
  }
  walk(x)
  ls(out, all.names = TRUE, sorted = TRUE)
}

# ---- file calls and circles ---------------------------------------------------------------------

edges <- list()
for (f in base) {
  used <- character()
  for (e in exprs[[f]]) {
    refs <- setdiff(referenced_names(e), bound_names(if (is_assign(e)) e[[3]] else e))
    used <- c(used, refs)
  }
  to <- unique(unname(def_file[intersect(unique(used), names(def_file))]))
  to <- setdiff(to, f)
  if (length(to)) edges[[f]] <- to
}

# Tarjan's strongly connected components of the graph restricted to `nodes`.
components <- function(nodes, edges) {
  index <- stats::setNames(rep(NA_integer_, length(nodes)), nodes)
  low <- index
  on_stack <- stats::setNames(rep(FALSE, length(nodes)), nodes)
  stack <- character()
  counter <- 0L
  out <- list()
  visit <- function(v) {
    counter <<- counter + 1L
    index[[v]] <<- counter
    low[[v]] <<- counter
    stack <<- c(stack, v)
    on_stack[[v]] <<- TRUE
    for (w in intersect(edges[[v]], nodes)) {
      if (is.na(index[[w]])) {
        visit(w)
        low[[v]] <<- min(low[[v]], low[[w]])
      } else if (on_stack[[w]]) {
        low[[v]] <<- min(low[[v]], index[[w]])
      }
    }
    if (low[[v]] == index[[v]]) {
      at <- match(v, stack)
      comp <- stack[at:length(stack)]
      stack <<- stack[seq_len(at - 1L)]
      on_stack[comp] <<- FALSE
      out[[length(out) + 1]] <<- sort(comp)
    }
  }
  for (v in nodes) if (is.na(index[[v]])) visit(v)
  out
}

circles <- list()
pairs <- 0L
for (layer in sort(unique(layer_of(base)))) {
  nodes <- base[layer_of(base) == layer]
  for (comp in components(nodes, edges)) {
    if (length(comp) >= 3) circles[[length(circles) + 1]] <- list(layer = layer, files = comp)
    if (length(comp) == 2) pairs <- pairs + 1L
  }
}
circles <- circles[order(-vapply(circles, function(c) length(c$files), 1L),
                         vapply(circles, `[[`, "", "layer"))]

# ---- private reaches ------------------------------------------------------------------------------

for (d in deps) {
  if (!requireNamespace(d, quietly = TRUE)) stop("bench/house.R reads ", d, "'s classes: install it.")
}
dep_private <- list(
  vitals = c(names(vitals::Task$private_fields), names(vitals::Task$private_methods)),
  ellmer = c(names(ellmer::Chat$private_fields), names(ellmer::Chat$private_methods))
)
dep_private_methods <- list(vitals = names(vitals::Task$private_methods),
                            ellmer = names(ellmer::Chat$private_methods))
dep_exports <- lapply(stats::setNames(deps, deps), getNamespaceExports)
# A name looked up literally counts when the package does not export it (whether this version
# has it or not); a string that merely sits near a lookup helper counts when the namespace has
# such an object.
not_exported <- function(pkg, name) !pkg %in% deps || !name %in% dep_exports[[pkg]]
is_unexported <- function(pkg, name) {
  pkg %in% deps && exists(name, envir = asNamespace(pkg), inherits = FALSE) &&
    !name %in% dep_exports[[pkg]]
}
# vitals' logged(fn, fn_name) wraps a Task's solver and scorer; its variables are vitals' own.
logged_vars <- c("fn", "fn_name")

is_ns_call <- function(x) {
  is.call(x) && head_name(x) %in% c("asNamespace", "getNamespace") && length(x) >= 2 &&
    is.character(x[[2]])
}
is_dollar <- function(x, field = NULL) {
  is.call(x) && identical(x[[1]], as.name("$")) &&
    (is.null(field) || identical(x[[3]], as.name(field)))
}
is_enclos <- function(x) is_dollar(x, "private") && is_dollar(x[[2]], ".__enclos_env__")
string_constants <- function(x) {
  out <- character()
  walk <- function(x) {
    if (is.character(x)) out <<- c(out, x)
    if (is.call(x)) for (i in seq_along(x)) if (!missing_arg(x[[i]])) walk(x[[i]])
  }
  walk(x)
  out
}
contains <- function(x, pred) {
  if (pred(x)) return(TRUE)
  if (is.call(x)) for (i in seq_along(x)) {
    if (!missing_arg(x[[i]]) && contains(x[[i]], pred)) return(TRUE)
  }
  FALSE
}
arg_value <- function(call, name, position) {
  a <- as.list(call)[-1]
  if (!is.null(names(a)) && name %in% names(a)) return(a[[name]])
  unnamed <- if (is.null(names(a))) a else a[!nzchar(names(a))]
  if (length(unnamed) >= position) unnamed[[position]]
}
lookup_heads <- c("get", "get0", "exists", "mget", "getFromNamespace", "getExportedValue")
# The package a namespace lookup reads (`envir = asNamespace("pkg")`, a variable bound to one,
# getFromNamespace(x, "pkg")), or NA.
lookup_pkg <- function(x, ns_vars) {
  if (!is.call(x) || !head_name(x) %in% lookup_heads) return(NA_character_)
  if (head_name(x) %in% c("getFromNamespace", "getExportedValue")) {
    ns <- arg_value(x, "ns", 2)
    if (is.character(ns)) return(ns)
    if (is_ns_call(ns)) return(ns[[2]])
    return(NA_character_)
  }
  env <- arg_value(x, "envir", 2)
  if (is_ns_call(env)) return(env[[2]])
  if (is.name(env) && as.character(env) %in% names(ns_vars)) return(ns_vars[[as.character(env)]])
  NA_character_
}

# Helpers found first: those that look a name up in a namespace (`ellmer_internal(name)`),
# those that return an R6 private environment (`vitals_private(task)`), and those that read
# a field of one by a name they are given (`task_step(task, what)`).
ns_getters <- list()
env_getters <- character()
field_getters <- list()
file_text <- vapply(files, function(f) paste(readLines(f, warn = FALSE), collapse = "\n"), "")
names(file_text) <- base
for (f in base[grepl("asNamespace|getFromNamespace|__enclos_env__", file_text)]) for (e in exprs[[f]]) {
  if (!is_assign(e) || !is.name(e[[2]]) || !is_fun(e[[3]])) next
  name <- as.character(e[[2]])
  formals_ <- names(e[[3]][[2]])
  body <- e[[3]][[3]]
  ns_vars <- list()
  stmts <- if (is.call(body) && identical(body[[1]], as.name("{"))) as.list(body)[-1] else list(body)
  for (s in stmts) {
    if (is_assign(s) && is.name(s[[2]]) && is_ns_call(s[[3]])) ns_vars[[as.character(s[[2]])]] <- s[[3]][[2]]
  }
  contains(body, function(x) {
    pkg <- lookup_pkg(x, ns_vars)
    first <- if (is.call(x) && length(x) >= 2) x[[2]]
    if (!is.na(pkg) && is.name(first) && as.character(first) %in% formals_) {
      ns_getters[[name]] <<- pkg
    }
    FALSE
  })
  last <- stmts[[length(stmts)]]
  if (contains(body, is_enclos)) {
    env_vars <- character()
    for (s in stmts) if (is_assign(s) && is.name(s[[2]]) && is_enclos(s[[3]])) {
      env_vars <- c(env_vars, as.character(s[[2]]))
    }
    if (is_enclos(last) || (is.name(last) && as.character(last) %in% env_vars)) {
      env_getters <- c(env_getters, name)
    }
  }
}
for (f in base) for (e in exprs[[f]]) {
  if (!is_assign(e) || !is.name(e[[2]]) || !is_fun(e[[3]])) next
  formals_ <- names(e[[3]][[2]])
  body <- e[[3]][[3]]
  if (is.call(body) && identical(body[[1]], as.name("[[")) && is.call(body[[2]]) &&
      head_name(body[[2]]) %in% env_getters && is.name(body[[3]]) &&
      as.character(body[[3]]) %in% formals_) {
    field_getters[[as.character(e[[2]])]] <- list(getter = head_name(body[[2]]),
                                                  arg = as.character(body[[3]]))
  }
}

reaches <- list()
reach <- function(dep, name, kind, file, fun, line, dynamic = FALSE) {
  reaches[[length(reaches) + 1]] <<- data.frame(dep = dep, name = name, kind = kind,
                                                file = file, fun = fun, line = line,
                                                dynamic = dynamic)
}
dep_of_field <- function(name, class_dep = NA_character_) {
  if (!is.na(class_dep) && name %in% dep_private[[class_dep]]) return(class_dep)
  hit <- deps[vapply(deps, function(d) name %in% dep_private[[d]], TRUE)]
  if (length(hit)) hit[[1]] else NA_character_
}

# Walks one function (or class method) with what it knows: the symbols that hold a private
# environment (`private` always), those bound to a namespace, the class's dependency.
walk_reaches <- function(code, file, fun, class_dep, line) {
  env_syms <- "private"
  ns_vars <- list()
  closure_vars <- character()
  strings <- string_constants(code)
  # a symbol a function or the class holds a private env in: `private`, or bound to one
  is_env <- function(x) {
    (is.name(x) && as.character(x) %in% env_syms) || is_enclos(x) ||
      (is.call(x) && head_name(x) %in% env_getters)
  }
  through_getter <- function(x) is.call(x) && head_name(x) %in% env_getters
  field <- function(name, x, kind, line) {
    own_class <- is.name(x) && identical(as.character(x), "private")
    dep <- dep_of_field(name, class_dep)
    if (is.na(dep) && through_getter(x) && !file %in% unlist(compat_files)) {
      # the package's own field, read through a dependency's private environment
      dep <- "vitals"
      kind <- paste(kind, "(own field, through the Task's private env)")
    }
    if (is.na(dep)) return()
    if (own_class && is.na(class_dep) && !file %in% unlist(compat_files) &&
        !name %in% dep_private[[dep]]) return()
    reach(dep, name, kind, file, fun, line)
  }
  walk <- function(x, line) {
    if (!is.call(x)) return()
    if (identical(x[[1]], as.name("{"))) {
      refs <- attr(x, "srcref")
      for (i in seq_along(x)[-1]) {
        l <- if (length(refs) >= i) refs[[i]][[1]] else line
        walk(x[[i]], l)
      }
      return()
    }
    h <- head_name(x)
    # bindings this function makes
    if (is_assign(x) && is.name(x[[2]])) {
      target <- as.character(x[[2]])
      if (is_env(x[[3]])) env_syms <<- c(env_syms, target)
      if (is_ns_call(x[[3]])) ns_vars[[target]] <<- x[[3]][[2]]
      if (is.call(x[[3]]) && head_name(x[[3]]) == "environment") closure_vars <<- c(closure_vars, target)
    }
    if (identical(x[[1]], as.name(":::")) && as.character(x[[2]]) %in% deps) {
      reach(as.character(x[[2]]), as.character(x[[3]]), "unexported function (:::)", file, fun, line)
    }
    if (is_enclos(x)) {
      reach(NA_character_, ".__enclos_env__$private", "R6 private environment", file, fun, line)
    }
    # a private env's field or method: `P$name`, `P[["name"]]`, `P[[name]]`
    if ((identical(x[[1]], as.name("$")) || identical(x[[1]], as.name("[["))) && is_env(x[[2]])) {
      key <- x[[3]]
      if (is.name(key) && identical(x[[1]], as.name("$"))) key <- as.character(key)
      if (is.character(key)) {
        field(key, x[[2]], "private field or method", line)
      } else {
        known <- strings[vapply(strings, function(s) !is.na(dep_of_field(s, class_dep)), TRUE)]
        if (length(known)) {
          for (s in unique(known)) field(s, x[[2]], "private field or method (by a computed name)", line)
        } else {
          reach(if (through_getter(x[[2]])) "vitals" else class_dep, "<computed name>",
                "private field or method (by a computed name)", file, fun, line)
        }
      }
    }
    if (h %in% c("exists", "ls", "get", "get0") && length(x) >= 2) {
      env <- arg_value(x, "envir", if (h == "ls") 1 else 2)
      if (!is.null(env) && is_env(env)) {
        name <- if (h == "ls") "<every field, listed>" else x[[2]]
        if (is.character(name)) {
          if (h == "ls") reach(NA_character_, name, "private fields listed", file, fun, line) else
            field(name, env, "private field looked up", line)
        }
      }
    }
    # super$<a dependency's private method>
    if (identical(x[[1]], as.name("$")) && identical(x[[2]], as.name("super")) && !is.na(class_dep) &&
        as.character(x[[3]]) %in% dep_private_methods[[class_dep]]) {
      reach(class_dep, as.character(x[[3]]), "private method called through super$", file, fun, line)
    }
    # Gen$private_methods$name
    if (is_dollar(x) && is_dollar(x[[2]]) &&
        as.character(x[[2]][[3]]) %in% c("private_methods", "private_fields")) {
      gen <- paste(deparse(x[[2]][[2]]), collapse = "")
      dep <- sub("::.*$", "", gen)
      if (dep %in% deps) reach(dep, as.character(x[[3]]), "class generator's private", file, fun, line)
    }
    # vitals' logged() closure: environment(step)$fn, or env$fn of `env <- environment(step)`
    if (is_dollar(x) && as.character(x[[3]]) %in% logged_vars &&
        ((is.call(x[[2]]) && head_name(x[[2]]) == "environment") ||
         (is.name(x[[2]]) && as.character(x[[2]]) %in% closure_vars))) {
      reach("vitals", paste0("logged()'s `", as.character(x[[3]]), "`"),
            "variable of vitals' logged() closure", file, fun, line)
    }
    # namespace lookups
    pkg <- lookup_pkg(x, ns_vars)
    if (!is.na(pkg) && pkg %in% deps) {
      what <- x[[2]]
      if (is.character(what)) {
        if (not_exported(pkg, what)) reach(pkg, what, "unexported object (namespace lookup)", file, fun, line)
      } else if (!(is.name(what) && fun %in% names(ns_getters))) {
        reach(pkg, paste(deparse(what), collapse = ""), "dynamic namespace lookup", file, fun, line,
              dynamic = TRUE)
      }
    }
    if (is_dollar(x) && (is_ns_call(x[[2]]) ||
                         (is.name(x[[2]]) && as.character(x[[2]]) %in% names(ns_vars)))) {
      pkg <- if (is_ns_call(x[[2]])) x[[2]][[2]] else ns_vars[[as.character(x[[2]])]]
      what <- as.character(x[[3]])
      if (pkg %in% deps && not_exported(pkg, what)) {
        reach(pkg, what, "unexported object (namespace lookup)", file, fun, line)
      }
    }
    if (h %in% c("eval", "evalq") && length(x) >= 3) {
      env <- arg_value(x, "envir", 2)
      if (is_ns_call(env) && env[[2]] %in% deps) {
        reach(env[[2]], paste0("<", paste(deparse(x[[2]]), collapse = ""), ">"),
              "code evaluated in the namespace", file, fun, line, dynamic = TRUE)
      }
    }
    if (h %in% c("assignInNamespace", "unlockBinding", "fixInNamespace")) {
      reach(NA_character_, h, "namespace modified", file, fun, line)
    }
    # a helper that looks up the name it is given, called with a literal name
    if (h %in% names(ns_getters) && length(x) >= 2 && is.character(x[[2]])) {
      if (not_exported(ns_getters[[h]], x[[2]])) {
        reach(ns_getters[[h]], x[[2]], paste0("unexported object (through ", h, "())"), file, fun, line)
      }
    }
    if (h %in% names(field_getters)) {
      g <- field_getters[[h]]
      name <- arg_value(x, g$arg, 2)
      if (is.character(name) && !file %in% unlist(compat_files)) {
        field(name, call(g$getter), paste0("private field or method (through ", h, "())"), line)
      }
    }
    # `private` handed to another function (its code then reads the class's private env)
    if (!is.na(class_dep) && !h %in% c("$", "[[", "exists", "ls", "get", "get0", "<-", "=")) {
      for (i in seq_along(x)[-1]) {
        if (identical(x[[i]], as.name("private"))) {
          reach(class_dep, paste0("<private env, given to ", h, "()>"),
                "private environment passed out of the class", file, fun, line)
        }
      }
    }
    for (i in seq_along(x)) if (!missing_arg(x[[i]])) walk(x[[i]], line)
  }
  walk(code, line)
  # a helper that looks up a name it is given, passed on as a function (lapply(names, getter)):
  # the literal names in the same function are what it looks up
  passed <- setdiff(intersect(referenced_names(code), names(ns_getters)), fun)
  for (g in passed) {
    called_literally <- contains(code, function(x) is.call(x) && head_name(x) == g &&
                                   length(x) >= 2 && is.character(x[[2]]))
    if (called_literally) next
    for (s in unique(strings)) if (is_unexported(ns_getters[[g]], s)) {
      reach(ns_getters[[g]], s, paste0("unexported object (through ", g, "())"), file, fun, line)
    }
  }
}

for (f in base) for (at in seq_along(exprs[[f]])) {
  e <- exprs[[f]][[at]]
  srcref <- attr(exprs[[f]], "srcref")
  line <- if (length(srcref) >= at) srcref[[at]][[1]] else NA_integer_
  name <- if (is_assign(e) && is.name(e[[2]])) as.character(e[[2]]) else "<top level>"
  value <- if (is_assign(e)) e[[3]] else e
  parts <- r6_parts(value)
  if (is.null(parts)) {
    walk_reaches(value, f, name, NA_character_, line)
    next
  }
  class_dep <- inherit_dep(parts$inherit)
  for (kind in names(parts$lists)) for (m in names(parts$lists[[kind]])) {
    v <- parts$lists[[kind]][[m]]
    at_line <- if (is_fun(v) && length(v) >= 4 && inherits(v[[4]], "srcref")) v[[4]][[1]] else line
    if (kind == "private" && !is.na(class_dep) && m %in% dep_private[[class_dep]]) {
      reach(class_dep, m, "private method overridden", f, paste0(name, "$", m), at_line)
    }
    if (is_fun(v)) walk_reaches(v, f, paste0(name, "$", m), class_dep, at_line)
  }
}
reaches <- do.call(rbind, reaches)
# The private environment itself, and fields listed, belong to the dependency whose fields
# the same function (or, for a helper returning it, its callers) reads.
for (i in which(is.na(reaches$dep))) {
  same <- reaches$dep[reaches$fun == reaches$fun[[i]] & !is.na(reaches$dep)]
  if (!length(same) && reaches$fun[[i]] %in% env_getters) same <- "vitals"
  if (length(same)) reaches$dep[[i]] <- names(sort(table(same), decreasing = TRUE))[[1]]
}
reaches <- unique(reaches)
reaches$compat <- mapply(function(dep, file) !is.na(dep) && file %in% compat_files[[dep]],
                         reaches$dep, reaches$file)
reaches <- reaches[order(reaches$dep, !reaches$compat, reaches$file, reaches$line, reaches$name), ]
mechanism <- c(".__enclos_env__$private", "<every field, listed>")

# ---- the engine and the evaluation sets ----------------------------------------------------------

engine <- base[layer_of(base) == "engine"]
evalset_defs <- defs$name[layer_of(defs$file) == "evalset"]
engine_up <- list()
for (f in engine) for (e in exprs[[f]]) {
  if (!is_assign(e) || !is.name(e[[2]])) next
  hit <- intersect(setdiff(referenced_names(e[[3]]), bound_names(e[[3]])), evalset_defs)
  for (h in hit) engine_up[[length(engine_up) + 1]] <- sprintf("%s: %s() -> %s() (%s)", f,
                                                             as.character(e[[2]]), h, def_file[[h]])
}
# A call whose function comes out of the settings or a context it carries: `settings$hand_over(...)`,
# or through a variable bound to what they carry (`pricing <- context$pricing; pricing(...)`).
context_names <- c("settings", "dry_run", "run", "hand_over", "context")
root_of <- function(x) {
  while (is.call(x) && (identical(x[[1]], as.name("$")) || identical(x[[1]], as.name("[[")))) x <- x[[2]]
  if (is.name(x)) as.character(x) else ""
}
field_of <- function(x) {
  if (is.call(x) && identical(x[[1]], as.name("$"))) return(as.character(x[[3]]))
  if (is.call(x) && identical(x[[1]], as.name("[[")) && is.character(x[[3]])) return(x[[3]])
  NA_character_
}
settings_calls <- list()
for (f in engine) for (e in exprs[[f]]) {
  if (!is_assign(e) || !is.name(e[[2]]) || !is_fun(e[[3]])) next
  fun <- as.character(e[[2]])
  rooted <- intersect(names(e[[3]][[2]]), context_names)
  # a context given as an argument and called itself (`hand_over(...)`) is its own field
  held <- stats::setNames(setdiff(rooted, "settings"), setdiff(rooted, "settings"))
  walk <- function(x) {
    if (!is.call(x)) return()
    if (is_assign(x) && is.name(x[[2]]) && root_of(x[[3]]) %in% rooted &&
        is.call(x[[3]]) && head_name(x[[3]]) %in% c("$", "[[")) {
      rooted <<- c(rooted, as.character(x[[2]]))
      held[[as.character(x[[2]])]] <<- field_of(x[[3]])
    }
    h <- x[[1]]
    called <- if (head_name(x) %in% c("do.call", "exec") && length(x) >= 2) x[[2]] else h
    field <- NA_character_
    if (is.call(called) && head_name(called) %in% c("$", "[[") && root_of(called) %in% rooted) {
      field <- field_of(called)
    } else if (is.name(called) && as.character(called) %in% names(held)) {
      field <- held[[as.character(called)]]
    }
    if (!is.na(field)) {
      settings_calls[[length(settings_calls) + 1]] <<- data.frame(
        file = f, fun = fun, call = paste(deparse(called), collapse = ""), field = field)
    }
    for (i in seq_along(x)) if (!missing_arg(x[[i]])) walk(x[[i]])
  }
  walk(e[[3]][[3]])
}
settings_calls <- unique(do.call(rbind, c(list(data.frame(file = character(), fun = character(),
                                                          call = character(), field = character())),
                                          settings_calls)))
# Where each such field is stored: `x$field <- value`, or `field = value` given to the
# settings' constructors.
storers <- function(field) {
  out <- character()
  for (f in base[grepl(field, file_text, fixed = TRUE)]) for (e in exprs[[f]]) {
    fun <- if (is_assign(e) && is.name(e[[2]])) as.character(e[[2]]) else "<top level>"
    contains(e, function(x) {
      stored <- (is_assign(x) && identical(field_of(x[[2]]), field)) ||
        (is.call(x) && head_name(x) %in% c("settings_with_dots", "new_request_settings") &&
           field %in% names(x))
      if (stored) out <<- c(out, sprintf("%s: %s()", f, fun))
      FALSE
    })
  }
  sort(unique(out))
}
callback_rows <- lapply(seq_len(nrow(settings_calls)), function(i) {
  where <- storers(settings_calls$field[[i]])
  list(text = sprintf("%s: %s() calls %s(...)", settings_calls$file[[i]], settings_calls$fun[[i]],
                      settings_calls$call[[i]]),
       where = where, up = any(layer_of(sub(":.*$", "", where)) != "engine"))
})

# ---- printing ------------------------------------------------------------------------------------

mark <- function(ok) if (isTRUE(ok)) "ok  " else "MISS"
row <- function(label, value, target, ok) {
  cat(sprintf("  %s %-52s %14s   target %s\n", mark(ok), label, value, target))
}
total <- sum(line_count)
cat("The house, measured: ", normalizePath(root), "\n", sep = "")
cat(sprintf("  (%d files in R/; vitals %s, ellmer %s, %s)\n\n", length(files),
            utils::packageVersion("vitals"), utils::packageVersion("ellmer"), R.version.string))

cat("Size\n")
row("lines in R/", format(total, big.mark = ","), "<= 20,000", total <= 20000)
share <- sum(comment_lines) / total
row("comment lines (code comments, not roxygen)",
    sprintf("%s = %.1f%%", format(sum(comment_lines), big.mark = ","), 100 * share), "< 9%", share < 0.09)
row("exports (NAMESPACE)", length(exports), "-", TRUE)
row("lines per export", sprintf("%.0f", total / length(exports)),
    "- (ellmer 151, vitals 335)", TRUE)
big <- sort(line_count[line_count > 500], decreasing = TRUE)
row("files over 500 lines", length(big), "0", length(big) == 0)
for (f in names(big)) cat(sprintf("         %-40s %5d lines\n", basename(f), big[[f]]))

cat("\nArguments (functions and R6 methods; formals, `...` included)\n")
funs <- funs[order(-funs$args, funs$name), ]
over8 <- funs[funs$args > 8, ]
over10 <- funs[funs$args > 10, ]
row("functions with more than 8 arguments", nrow(over8), "-", TRUE)
row("functions with more than 10 arguments", nrow(over10), "0", nrow(over10) == 0)
constructor <- grepl("^new_|_(task|solver|scorer|settings|chat)$", over8$name) &
  over8$name %in% exports
row("exported constructors with more than 8", sum(constructor), "0", sum(constructor) == 0)
for (i in seq_len(nrow(over8))) {
  tags <- c(if (over8$name[[i]] %in% exports) "exported", if (constructor[[i]]) "constructor")
  cat(sprintf("         %-32s %-28s %3d%s\n", over8$name[[i]], over8$file[[i]], over8$args[[i]],
              if (length(tags)) paste0("  (", paste(tags, collapse = ", "), ")") else ""))
}

cat("\nCircles of files inside a layer (strongly connected, 3+ files)\n")
row("circles", length(circles), "0", length(circles) == 0)
row("files in circles", sum(vapply(circles, function(c) length(c$files), 1L)), "0", length(circles) == 0)
row("pairs of files calling each other", pairs, "-", TRUE)
for (c in circles) {
  cat(sprintf("         %s (%d files): %s\n", c$layer, length(c$files),
              paste(sub("[.][Rr]$", "", c$files), collapse = ", ")))
}

# Each dependency's reaches: those inside and outside its compat file, and the distinct names
# reached (not the means, a computed name or the env handed on).
dep_reaches <- function(d) {
  r <- reaches[reaches$dep %in% d & !reaches$dynamic, ]
  inside <- r[r$compat, ]
  list(r = r, inside = inside, outside = r[!r$compat, ],
       named_inside = grep("^<", setdiff(unique(inside$name), mechanism), value = TRUE, invert = TRUE),
       named = grep("^<", setdiff(unique(r$name), mechanism), value = TRUE, invert = TRUE))
}

cat("\nPrivate state and unexported functions of vitals and ellmer\n")
for (d in deps) {
  list2env(dep_reaches(d), environment())
  functions <- unique(r$name[grepl("^unexported", r$kind)])
  compat <- if (length(compat_files[[d]])) paste(compat_files[[d]], collapse = ", ") else "none"
  row(sprintf("%s: uses outside its compat file", d),
      sprintf("%d in %d files", nrow(outside), length(unique(outside$file))), "0", nrow(outside) == 0)
  row(sprintf("%s: names reached in %s", d, compat), length(named_inside), "< 6",
      length(named_inside) < 6 && length(compat_files[[d]]) == 1)
  cat(sprintf("         %d names in all: %d unexported objects, %d private fields, methods and closure variables\n",
              length(named), length(functions), length(setdiff(named, functions))))
  if (nrow(outside)) cat("         outside the compat file, each use:\n")
  for (i in seq_len(nrow(outside))) {
    cat(sprintf("           %-26s %-34s %s: %s\n", outside$file[[i]],
                paste0(outside$fun[[i]], ":", outside$line[[i]]), outside$name[[i]], outside$kind[[i]]))
  }
  if (nrow(inside)) cat(sprintf("         inside %s, each name and the functions reaching it:\n", compat))
  for (name in unique(inside$name)) {
    at <- inside[inside$name == name, ]
    cat(sprintf("           %-30s %s (%s)\n", name, paste(unique(at$fun), collapse = ", "),
                sub(" [(].*$", "", at$kind[[1]])))
  }
  dyn <- reaches[reaches$dep %in% d & reaches$dynamic, ]
  for (i in seq_len(nrow(dyn))) {
    cat(sprintf("         dynamic  %-17s %-34s %s: %s\n", dyn$file[[i]],
                paste0(dyn$fun[[i]], ":", dyn$line[[i]]), dyn$name[[i]], dyn$kind[[i]]))
  }
}

cat("\nThe engine and the evaluation sets\n")
row("engine functions calling evalset functions", length(engine_up), "0", length(engine_up) == 0)
for (x in engine_up) cat("         ", x, "\n", sep = "")
row("engine functions calling a settings/context callback", length(callback_rows), "0",
    length(callback_rows) == 0)
up <- sum(vapply(callback_rows, `[[`, TRUE, "up"))
row("  of which the callback is stored above the engine", up, "0", up == 0)
for (x in callback_rows) {
  cat("         ", x$text, "\n", sep = "")
  cat("           the function stored by: ", paste(x$where, collapse = "; "), "\n", sep = "")
}

cat(sprintf("\n(read in %.1f s)\n", proc.time()[["elapsed"]] - started))
