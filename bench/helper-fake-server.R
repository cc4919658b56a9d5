# A fast OpenAI-compatible fake server for the benchmarks in bench/.
#
# The test helper (tests/testthat/helper-fake-openai.R) is a webfakes app: flexible, but its
# routing and middleware run in R for every request, which caps it at a few hundred requests
# per second: below what concurrency 50 at 100 ms latency needs (500/s). A bare httpuv app
# was tried first and measured worse (each response paid a ~40 ms Nagle/delayed-ACK stall).
# This one is a minimal asyncio HTTP/1.1 server in Python (/usr/bin/python3, standard
# library only) with TCP_NODELAY and one write per response: it answers every POST with one
# fixed chat completion after `latency` seconds (asyncio.sleep, so requests overlap), keeps
# connections alive, and counts requests. A POST to /v1/completions gets an echo of its
# prompt with log-probabilities instead (for query_logprobs()). With `sigma > 0` the latency is lognormal (median
# `latency`), drawn per item number so that every client meets the same latencies. `fast_fake_server()` returns $url (the base_url for ellmer), $count(), $reset()
# and $stop(). Its own ceiling is measured by bench/throughput.R (server_ceiling()).

fast_fake_server_py <- r"---(import asyncio, hashlib, json, math, re, socket, sys
from statistics import NormalDist
latency = float(sys.argv[1]); reply = sys.argv[2]; port_file = sys.argv[3]
sigma = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
n = 0
def delay(payload):
    # Lognormal latency (median `latency`, log-sd `sigma`), a fixed function of the item
    # number in the prompt, so every client sending the same items meets the same latencies.
    if sigma <= 0:
        return latency
    m = re.search(rb"item (\d+)", payload)
    key = m.group(1) if m else payload
    u = (int(hashlib.md5(key).hexdigest()[:12], 16) % 1000000 + 0.5) / 1000000
    return latency * math.exp(sigma * NormalDist().inv_cdf(u))
body = json.dumps({"id": "chatcmpl-fake", "object": "chat.completion", "created": 0,
    "model": "fake-model", "choices": [{"index": 0, "finish_reason": "stop",
    "message": {"role": "assistant", "content": reply}}],
    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}).encode()
def response(payload):
    return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
            + str(len(payload)).encode() + b"\r\nConnection: keep-alive\r\n\r\n" + payload)
ok = response(body)
def echo(payload):
    # /v1/completions with echo: the prompt's whitespace tokens, each with log-probability -1
    # (the first with none), nothing generated.
    prompt = json.loads(payload)["prompt"]
    tokens = re.findall(r"\n| ?[^ \n]+| +", prompt)
    logprobs = [None] + [-1.0] * (len(tokens) - 1)
    return response(json.dumps({"object": "text_completion", "model": "fake-model",
        "choices": [{"index": 0, "text": prompt, "finish_reason": "length",
                     "logprobs": {"tokens": tokens, "token_logprobs": logprobs}}],
        "usage": {"prompt_tokens": len(tokens), "completion_tokens": 0,
                  "total_tokens": len(tokens)}}).encode())
async def handle(reader, writer):
    global n
    sock = writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path = lines[0].split(" ")[:2]
            length = 0
            for line in lines[1:]:
                if line.lower().startswith("content-length:"):
                    length = int(line.split(":", 1)[1])
            payload = await reader.readexactly(length) if length else b""
            if method == "GET":
                if path.startswith("/__reset"):
                    n = 0
                writer.write(response(json.dumps({"n": n}).encode()))
            else:
                n += 1
                wait = delay(payload)
                if wait > 0:
                    await asyncio.sleep(wait)
                completions = path.endswith("/completions") and "/chat/" not in path
                writer.write(echo(payload) if completions else ok)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionResetError, BrokenPipeError):
        pass
    finally:
        writer.close()
async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=1024)
    port = server.sockets[0].getsockname()[1]
    with open(port_file, "w") as f:
        f.write(f"{port}\n")
    async with server:
        await server.serve_forever()
asyncio.run(main())
)---"

fast_fake_server <- function(latency = 0.1, reply = "\\boxed{A}", python = "/usr/bin/python3",
                             sigma = 0) {
  script <- tempfile(fileext = ".py")
  writeLines(fast_fake_server_py, script)
  port_file <- tempfile()
  proc <- processx::process$new(python, c(script, format(latency), reply, port_file, format(sigma)),
                                stdout = NULL, stderr = "|", cleanup = TRUE)
  deadline <- Sys.time() + 20
  while (!file.exists(port_file) || !length(readLines(port_file, warn = FALSE))) {
    if (!proc$is_alive()) stop("fake server died: ", proc$read_all_error())
    if (Sys.time() > deadline) stop("fake server did not start")
    Sys.sleep(0.05)
  }
  port <- as.integer(trimws(readLines(port_file, warn = FALSE)[[1]]))
  root <- sprintf("http://127.0.0.1:%d", port)
  list(
    url = paste0(root, "/v1"),
    count = function() jsonlite::fromJSON(paste0(root, "/__count"))$n,
    reset = function() invisible(jsonlite::fromJSON(paste0(root, "/__reset"))$n),
    stop = function() proc$kill(),
    pid = proc$get_pid(),
    process = proc
  )
}

# A chat against the fast server, with a fake key.
fast_fake_chat <- function(server, model = "fake-model") {
  ellmer::chat_openai_compatible(base_url = server$url, model = model,
                                 credentials = function() "sk-bench-not-a-key")
}

# The server's own ceiling: n requests sent with plain curl multi (no ellmer, no httr2) at
# `concurrency` connections. Returns requests per second and the wall time.
server_ceiling <- function(server, n = 2000, concurrency = 50, prompts = NULL) {
  bodies <- if (is.null(prompts)) {
    rep('{"model":"fake-model","messages":[{"role":"user","content":"hi"}]}', n)
  } else {
    vapply(prompts, function(p) as.character(jsonlite::toJSON(list(
      model = "fake-model", messages = list(list(role = "user", content = p))
    ), auto_unbox = TRUE)), "")
  }
  n <- length(bodies)
  pool <- curl::new_pool(total_con = concurrency, host_con = concurrency, multiplex = FALSE)
  done <- 0L
  failed <- 0L
  started <- Sys.time()
  for (i in seq_len(n)) {
    h <- curl::new_handle(url = paste0(server$url, "/chat/completions"),
                          postfields = bodies[[i]])
    curl::handle_setheaders(h, `Content-Type` = "application/json")
    curl::curl_fetch_multi(paste0(server$url, "/chat/completions"), handle = h, pool = pool,
                           done = function(res) done <<- done + 1L,
                           fail = function(msg) failed <<- failed + 1L)
  }
  curl::multi_run(pool = pool)
  seconds <- as.double(Sys.time() - started, units = "secs")
  list(n = n, concurrency = concurrency, ok = done, failed = failed, seconds = seconds,
       per_second = done / seconds)
}

# A FutureX-shaped task table of `n` samples: the shipped sample's rows recycled, each
# prompt made unique (so every sample is its own request and cache entry).
futurex_shaped <- function(n) {
  base <- futurex_dataset(version = "sample")
  rows <- rep_len(seq_len(nrow(base)), n)
  out <- base[rows, ]
  out$id <- sprintf("bench-%06d", seq_len(n))
  out$input <- paste0(out$input, "\n(benchmark item ", seq_len(n), ")")
  out
}

# Wall time of an expression, in seconds.
wall <- function(expr) {
  started <- Sys.time()
  force(expr)
  as.double(Sys.time() - started, units = "secs")
}

machine_line <- function() {
  mem <- tryCatch(system("free -h | awk '/Mem:/ {print $2}'", intern = TRUE),
                  error = function(e) "?")
  sprintf("machine: %s cores, %s RAM; %s; ellmer %s, vitals %s, httr2 %s",
          parallel::detectCores(), mem, R.version.string, utils::packageVersion("ellmer"),
          utils::packageVersion("vitals"), utils::packageVersion("httr2"))
}

# The first lines of a bench's child R script: `hwm()` (the process's peak RSS so far, MB),
# `cpu(t)` (a system.time()'s user + system seconds), `%||%`, the package (`load`: the line
# that loads it) and this helper file.
child_preamble <- function(load = "suppressMessages(pkgload::load_all('.', quiet = TRUE))") {
  c("hwm <- function() { s <- readLines('/proc/self/status'); as.numeric(gsub('[^0-9]', '', grep('^VmHWM', s, value = TRUE))) / 1024 }",
    "cpu <- function(t) t[['user.self']] + t[['sys.self']]",
    "`%||%` <- function(x, y) if (is.null(x)) y else x",
    load,
    "source('bench/helper-fake-server.R')")
}

# The checkout at `path` installed into a scratch library, as a user has the package
# (byte-compiled; load_all()'s copy is compiled by R's JIT as it runs, and holds twice the
# heap: under it R grows its heap at random points of a long run). The library's path.
install_checkout <- function(path = ".") {
  lib <- tempfile("bench-lib-")
  dir.create(lib)
  log <- tempfile(fileext = ".log")
  status <- system2(file.path(R.home("bin"), "R"),
                    c("CMD", "INSTALL", "--no-docs", "--no-multiarch", "--no-test-load",
                      paste0("--library=", lib), shQuote(normalizePath(path))),
                    stdout = log, stderr = log)
  if (!identical(as.integer(status), 0L)) {
    stop("installing the checkout failed:\n", paste(readLines(log), collapse = "\n"))
  }
  lib
}

# Seconds the expression `timed` (a string of R code) takes in a child process that loaded
# the package from `checkout` (an earlier version) and ran `setup`; `data` is there as `data`.
# Elapsed seconds, or with `cpu = TRUE` the CPU seconds of the process.
checkout_seconds <- function(checkout, data, setup = character(), timed, cpu = FALSE) {
  rds <- tempfile(fileext = ".rds")
  saveRDS(data, rds)
  out <- tempfile()
  script <- tempfile(fileext = ".R")
  writeLines(c(
    sprintf("suppressMessages(pkgload::load_all(%s, quiet = TRUE))", deparse(checkout)),
    sprintf("data <- readRDS(%s)", deparse(rds)),
    setup,
    sprintf("t <- system.time(%s)", timed),
    if (cpu) "t <- t[['user.self']] + t[['sys.self']]" else "t <- t[['elapsed']]",
    sprintf("writeLines(format(t), %s)", deparse(out))
  ), script)
  system2(file.path(R.home("bin"), "Rscript"), script, stdout = FALSE, stderr = FALSE)
  as.double(readLines(out))
}
