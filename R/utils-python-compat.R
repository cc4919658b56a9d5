# Python's behaviour where a benchmark's reference code relies on it: str.strip(), the
# iteration order of a set of letters, repr() of a float, csv quoting and string literals.


# str.strip(): Unicode whitespace on both ends, not only R's default [ \t\r\n].
py_strip <- function(x) trimws(x, whitespace = "[\\h\\v]")

# The iteration order of a CPython 3.11+ set of capital letters under PYTHONHASHSEED=0, so
# FutureX's `next(iter(set_of_letters))` picks what `PYTHONHASHSEED=0 python3 eval.py` picks.

# hash(letter) & (2^64 - 1) under PYTHONHASHSEED=0 (SipHash-1-3, CPython >= 3.11), as hex.
python_letter_hash <- c(
  A = "ebd11618f299a286", B = "ef35774e6d314e91", C = "e7094788287c5e9b",
  D = "96f57966bedc81b4", E = "a9c23c6ac3fc3eca", F = "d66501df72047452",
  G = "2329c99376c9d0a4", H = "7f8ddf7c7c20b3cd", I = "9bb611d729802a56",
  J = "b4171a6734a65d42", K = "3466f893ebf79586", L = "61196ced6d74a310",
  M = "3a1a48c8f6ef640e", N = "a07804094c3ecf2d", O = "c4ce752e73470fba",
  P = "56c0d5a1e737357d", Q = "3722cfe417b6ed86", R = "0db202ddc8be9136",
  S = "25ce5a424b770e84", T = "971d5caa766a69d7", U = "3a6d5c9ae78a2c08",
  V = "e7c866399fa523f5", W = "71cec2538cb2c617", X = "78acf4525d8a74c4",
  Y = "8743009a87fcb00f", Z = "dc98b0b04f4c7758"
)

hex_bits <- function(hex) {
  digits <- strtoi(strsplit(hex, "")[[1]], 16L)
  bits <- unlist(lapply(rev(digits), function(d) bitwAnd(d, c(1L, 2L, 4L, 8L)) > 0))
  as.integer(bits)
}

bits_value <- function(bits, from, width) {
  # Value of bits[from + 0:(width - 1)] (0-based `from`), reading past the top as 0.
  idx <- from + seq_len(width)
  b <- ifelse(idx <= 64, bits[pmin(idx, 64)], 0L)
  sum(b * 2^(seq_len(width) - 1))
}

python_set_order <- function(letters) {
  letters <- unique(letters)
  if (length(letters) < 2) return(letters)
  if (!all(letters %in% names(python_letter_hash))) {
    abort_pb("Only single capital letters have a known set order.", "argument")
  }
  bits <- lapply(python_letter_hash[letters], hex_bits)
  size_bits <- 3L
  table <- character(2^size_bits)
  for (letter in letters) {
    table <- python_set_insert(table, letter, bits[[letter]], size_bits)
    used <- sum(nzchar(table))
    mask <- 2^size_bits - 1
    if (used * 5 >= mask * 3) {
      new_bits <- size_bits
      while (2^new_bits <= used * 4) new_bits <- new_bits + 1L
      old <- table[nzchar(table)]
      size_bits <- new_bits
      table <- character(2^size_bits)
      for (key in old) table <- python_set_insert(table, key, bits[[key]], size_bits)
    }
  }
  table[nzchar(table)]
}

# Open addressing as CPython's set does it: up to 9 linear probes, then perturbation.
python_set_insert <- function(table, key, bits, size_bits) {
  mask <- 2^size_bits - 1
  i <- bits_value(bits, 0, size_bits)
  shift <- 0
  repeat {
    probes <- if (i + 9 <= mask) 9 else 0
    for (j in 0:probes) {
      if (!nzchar(table[[i + j + 1]])) {
        table[[i + j + 1]] <- key
        return(table)
      }
    }
    shift <- shift + 5
    i <- (i * 5 + 1 + bits_value(bits, shift, size_bits)) %% (mask + 1)
  }
}

# Python csv QUOTE_MINIMAL: quote a field holding the delimiter, a quote or a line break.
csv_field <- function(x) {
  x <- enc2utf8(as.character(x))
  x[is.na(x)] <- ""
  quote <- grepl('[,"\r\n]', x)
  x[quote] <- paste0('"', gsub('"', '""', x[quote], fixed = TRUE), '"')
  x
}

# Python's repr() of a float (how pandas writes floats; NA an empty field). The round trip is
# checked with jsonlite's correctly rounded strtod: R's as.double() is off by one ulp for some
# 15-16 digit strings.
py_float_repr <- function(x) {
  x <- as.double(x)
  out <- rep("", length(x))
  out[is.infinite(x)] <- ifelse(x[is.infinite(x)] > 0, "inf", "-inf")
  zero <- !is.na(x) & x == 0
  out[zero] <- ifelse(1 / x[zero] < 0, "-0.0", "0.0")
  todo <- which(is.finite(x) & x != 0)
  if (!length(todo)) return(out)
  v <- x[todo]
  candidates <- vapply(1:17, function(d) sprintf("%.*e", d - 1L, v), character(length(v)))
  candidates <- matrix(candidates, nrow = length(v))
  parsed <- jsonlite::fromJSON(paste0("[", paste(t(candidates), collapse = ","), "]"))
  parsed <- matrix(parsed, nrow = length(v), byrow = TRUE)
  shortest <- vapply(seq_along(v), function(i) which(parsed[i, ] == v[[i]])[[1]], 1L)
  out[todo] <- vapply(seq_along(v), function(i) {
    py_float_digits(candidates[i, shortest[[i]]], v[[i]] < 0)
  }, "")
  out
}

py_float_digits <- function(s, negative) {
  exponent <- as.integer(sub(".*e", "", s))
  digits <- gsub("[-.]", "", sub("e.*", "", s))
  digits <- sub("0+$", "", digits)
  if (!nzchar(digits)) digits <- "0"
  sign <- if (negative) "-" else ""
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) return(paste0(sign, "0.", strrep("0", -exponent - 1), digits))
    int_digits <- exponent + 1
    if (nchar(digits) < int_digits) {
      digits <- paste0(digits, strrep("0", int_digits - nchar(digits)))
    }
    frac <- substring(digits, int_digits + 1)
    return(paste0(sign, substr(digits, 1, int_digits), ".", if (nzchar(frac)) frac else "0"))
  }
  mantissa <- if (nchar(digits) > 1) {
    paste0(substr(digits, 1, 1), ".", substring(digits, 2))
  } else {
    digits
  }
  paste0(sign, mantissa, "e", if (exponent < 0) "-" else "+",
         formatC(abs(exponent), width = 2, flag = "0"))
}

# The Python string literal at the start of `text` ('...' or "..."), unescaped.
python_string_literal <- function(text) {
  chars <- strsplit(text, "")[[1]]
  if (!length(chars) || !chars[[1]] %in% c("'", "\"")) return(NULL)
  quote <- chars[[1]]
  out <- character()
  i <- 2
  escapes <- c(n = "\n", t = "\t", r = "\r", "\\" = "\\", "'" = "'", "\"" = "\"",
               a = "\a", b = "\b", f = "\f", v = "\v")
  while (i <= length(chars)) {
    ch <- chars[[i]]
    if (ch == quote) return(paste(out, collapse = ""))
    if (ch == "\\" && i < length(chars)) {
      nxt <- chars[[i + 1]]
      if (nxt %in% c("x", "u", "U")) {
        width <- c(x = 2, u = 4, U = 8)[[nxt]]
        hex <- paste(chars[i + 1 + seq_len(width)], collapse = "")
        out <- c(out, intToUtf8(strtoi(hex, 16L)))
        i <- i + 2 + width
        next
      }
      out <- c(out, if (nxt %in% names(escapes)) escapes[[nxt]] else
        paste0("\\", nxt))
      i <- i + 2
      next
    }
    out <- c(out, ch)
    i <- i + 1
  }
  NULL
}
