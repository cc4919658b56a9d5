# The iteration order of a CPython 3.11+ set of single capital letters built with
# PYTHONHASHSEED=0. FutureX's reference picks `next(iter(set_of_letters))`; with this order
# the pick is the one `PYTHONHASHSEED=0 python3 eval.py` makes, instead of one that changes
# with every run's hash seed.

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

# 64 bits, least significant first.
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
