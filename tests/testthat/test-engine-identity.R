# Cache identity: what makes two requests the same, never the credentials.

test_that("the key covers provider class and properties, api_args, headers and tools", {
  key <- function(chat) cache_key(request_identity(chat), prompt_fingerprint("q"), 1L)
  creds <- function() "sk-x"
  base <- ellmer::chat_openai_compatible(base_url = "http://h/v1", model = "m",
                                         credentials = creds)
  variants <- list(
    base_url = ellmer::chat_openai_compatible(base_url = "http://other/v1", model = "m",
                                              credentials = creds),
    model = ellmer::chat_openai_compatible(base_url = "http://h/v1", model = "m2",
                                           credentials = creds),
    params = ellmer::chat_openai_compatible(base_url = "http://h/v1", model = "m",
                                            credentials = creds,
                                            params = ellmer::params(temperature = 0)),
    api_args = ellmer::chat_openai_compatible(base_url = "http://h/v1", model = "m",
                                              credentials = creds, api_args = list(n = 2)),
    header_value = ellmer::chat_openai_compatible(base_url = "http://h/v1", model = "m",
                                                  credentials = creds,
                                                  api_headers = c(`x-route` = "eu")),
    provider_class = ellmer::chat_vllm(base_url = "http://h/v1", model = "m",
                                       credentials = creds),
    system_prompt = ellmer::chat_openai_compatible(base_url = "http://h/v1", model = "m",
                                                   credentials = creds, system_prompt = "Hi")
  )
  keys <- vapply(variants, key, "")
  expect_false(any(keys == key(base)))
  expect_false(anyDuplicated(keys) > 0)
  # header values count, not only names
  us <- ellmer::chat_openai_compatible(base_url = "http://h/v1", model = "m",
                                       credentials = creds, api_headers = c(`x-route` = "us"))
  expect_false(key(us) == keys[["header_value"]])
  # tools: registering one, or another function under the same definition, changes the key
  add <- function(body) {
    ch <- base$clone()
    ch$register_tool(ellmer::tool(body, "Add", arguments = list(x = ellmer::type_number())))
    ch
  }
  k1 <- key(add(function(x) x + 1))
  k2 <- key(add(function(x) x + 2))
  expect_false(k1 == key(base))
  expect_false(k1 == k2)
  # the API key is not part of it
  other_key <- ellmer::chat_openai_compatible(base_url = "http://h/v1", model = "m",
                                              credentials = function() "sk-y")
  expect_equal(key(other_key), key(base))
})

test_that("hash_headers() keeps no header value and ignores order", {
  hashed <- hash_headers(c(`X-Route` = "eu", Authorization = "Bearer SECRET"))
  expect_length(hashed, 2)
  expect_false(any(grepl("SECRET|eu", hashed)))
  expect_equal(hashed, hash_headers(c(authorization = "Bearer SECRET", `x-route` = "eu")))
  expect_false(identical(hashed, hash_headers(c(`X-Route` = "us", Authorization = "Bearer SECRET"))))
  expect_equal(hash_headers(NULL), list())
})

test_that("request_keys() gives each request exactly its cache_key(), the identity serialised once", {
  creds <- function() "sk-x"
  chats <- list(
    ellmer::chat_openai_compatible(base_url = "http://h/v1", model = "m", credentials = creds,
                                   params = ellmer::params(temperature = 0.7, seed = 3),
                                   system_prompt = "Be \"brief\"\n\u00e9"),
    ellmer::chat_vllm(base_url = "http://h/v1", model = "m", credentials = creds,
                      api_args = list(n = 2, stop = c("a", "b")))
  )
  chats[[2]]$set_turns(list(ellmer::UserTurn(list(ellmer::ContentText("earlier")))))
  identities <- list(request_identity(chats[[1]], "x"), request_identity(chats[[2]], NULL))
  prompts <- list("q", list(ellmer::ContentText("multi"), "part"), "q")
  fingerprints <- vapply(prompts, prompt_fingerprint, "")
  chat_index <- c(1L, 2L, 2L)
  epoch <- c(1L, NA, 12L)
  expected <- vapply(seq_along(prompts), function(i) {
    cache_key(identities[[chat_index[[i]]]], fingerprints[[i]], epoch[[i]])
  }, "")
  expect_identical(request_keys(identities, chat_index, fingerprints, epoch), expected)
  expect_length(unique(expected), 3)
  expect_identical(request_keys(identities, integer(), character(), integer()), character())
  # the same keys where fingerprints and epochs are written without toJSON() (hex digests,
  # integers), and where they are not (another string, a double epoch)
  for (epoch in list(c(1L, 2L, 100000L), c(1, 2.5, 100000))) {
    for (fp in list(fingerprints, c("not \"hex\"", fingerprints[-1]))) {
      expected <- vapply(seq_along(fp), function(i) {
        cache_key(identities[[chat_index[[i]]]], fp[[i]], epoch[[i]])
      }, "")
      expect_identical(request_keys(identities, chat_index, fp, epoch), expected)
    }
  }
})
