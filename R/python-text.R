# Python's str semantics where a benchmark's reference code relies on them.

# str.strip(): Unicode whitespace on both ends, not only R's default [ \t\r\n].
py_strip <- function(x) trimws(x, whitespace = "[\\h\\v]")
