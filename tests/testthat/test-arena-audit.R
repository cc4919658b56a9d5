# judge_audit() of arena runs at a fake OpenAI-compatible server: the judge's model says how
# it judges. "first" always prefers the first answer; "longer" the longer one; "oracle" the
# right one (an answer saying RIGHT beats one saying WRONG, a tie between two of a kind);
# "selfish" always prefers an answer signed SELF.
local_audit_server <- function(.local_envir = parent.frame()) {
  local_fake_openai(function(body, n) {
    answers <- battle_answers(last_user_text(body))
    a <- answers$a
    b <- answers$b
    prefer <- function(x, y) if (x == y) 0L else if (x) 1L else 2L
    winner <- switch(body$model,
      first = 1L,
      longer = prefer(nchar(a) > nchar(b), nchar(b) > nchar(a)),
      oracle = prefer(grepl("RIGHT", a), grepl("RIGHT", b)),
      selfish = prefer(grepl("SELF", a), grepl("SELF", b))
    )
    sprintf('{"winner": %d, "explanation": "Fake judge."}', winner)
  }, .local_envir = .local_envir)
}

# Contestants answering offline: "good" is always right, "bad" always wrong, "mixed" right
# on every other question; each answer padded to a length of its own that has nothing to do
# with being right.
audit_contestants <- function(sign = NULL) {
  answer <- function(model, right) {
    force(model)
    baseline_chat(function(q) {
      k <- as.integer(sub("\\D+", "", q))
      pad <- strrep("x", sum(utf8ToInt(paste(q, model))) %% 37)
      paste(if (right(k)) "RIGHT" else "WRONG", pad)
    }, model)
  }
  list(good = answer("good", function(k) TRUE), bad = answer("bad", function(k) FALSE),
       mixed = answer("mixed", function(k) k %% 2 == 1))
}

audit_questions <- data.frame(question = paste("Question", 1:20))

audit_run <- function(judge, models = audit_contestants(), position_swap = FALSE,
                      settings = request_settings(rpm = Inf, cache = withr::local_tempdir(
                        .local_envir = parent.frame()))) {
  arena_run(models, judge, dataset = audit_questions,
            dir = withr::local_tempdir(.local_envir = parent.frame()), settings = settings,
            options = arena_options(strategy = "all", position_swap = position_swap,
                                    ratings = rating_options(method = "elo", bootstrap = 20)))
}

row_of <- function(audit, metric) audit[audit$metric == metric, ]

test_that("an always-first judge is flagged, the swapped orders judged via the cache", {
  server <- local_audit_server()
  judge <- fake_chat(server, "first")
  settings <- request_settings(cache = withr::local_tempdir(), rpm = Inf)
  run <- suppressWarnings(audit_run(judge, settings = settings))
  battles <- nrow(run$records)
  expect_equal(battles, 60)
  sent <- server$count()
  audit <- judge_audit(run, judge = judge, settings = settings)
  # the run judged one order: the audit judged each battle's swapped order, once
  expect_equal(server$count() - sent, battles)
  expect_s3_class(audit, "judge_audit")
  expect_named(audit, c("group", "metric", "estimate", "lower", "upper", "n", "compared_with",
                        "fair", "flagged", "benchmark", "source"))
  consistency <- row_of(audit, "position_consistency")
  expect_equal(consistency$estimate, 0)
  expect_equal(consistency$n, battles)
  expect_lt(consistency$upper, 0.5)
  expect_true(consistency$flagged)
  first <- row_of(audit, "first_position_win_rate")
  expect_equal(first$estimate, 1)
  expect_equal(first$n, 2 * battles)
  expect_gt(first$lower, 0.5)
  expect_true(first$flagged)
  expect_equal(audit$group[[1]], "openai_compatible/first")
  expect_equal(audit$source[[1]], run$paths$log)
  # a second audit finds every swapped verdict in the response cache
  sent <- server$count()
  expect_equal(judge_audit(run, judge = judge, settings = settings)$estimate, audit$estimate)
  expect_equal(server$count(), sent)
})

test_that("a judge that prefers the longer answer is flagged by the length statistic", {
  server <- local_audit_server()
  run <- suppressWarnings(audit_run(fake_chat(server, "longer"), position_swap = TRUE))
  sent <- server$count()
  audit <- judge_audit(run)
  # both orders are in the log: nothing to judge, no judge needed
  expect_equal(server$count(), sent)
  longer <- row_of(audit, "longer_answer_win_rate")
  expect_equal(longer$estimate, 1)
  expect_gt(longer$lower, 0.5)
  expect_true(longer$flagged)
  # it is not fooled by position: both orders agree
  expect_equal(row_of(audit, "position_consistency")$estimate, 1)
  expect_false(row_of(audit, "position_consistency")$flagged)
  expect_false(row_of(audit, "first_position_win_rate")$flagged)
})

test_that("a fair oracle judge is not flagged", {
  server <- local_audit_server()
  judge <- fake_chat(server, "oracle")
  run <- suppressWarnings(audit_run(judge))
  audit <- judge_audit(run, judge = judge, settings = request_settings(cache = FALSE, rpm = Inf))
  expect_equal(sort(audit$metric), sort(c("position_consistency", "first_position_win_rate",
                                          "longer_answer_win_rate", "unreadable_verdicts")))
  expect_equal(row_of(audit, "unreadable_verdicts")$estimate, 0)
  expect_false(any(audit$flagged))
  expect_equal(row_of(audit, "position_consistency")$estimate, 1)
  expect_equal(row_of(audit, "first_position_win_rate")$estimate, 0.5)
  longer <- row_of(audit, "longer_answer_win_rate")
  expect_true(longer$lower < 0.5 && longer$upper > 0.5)
})

test_that("a judge preferring its own model's answers is flagged by self-preference", {
  server <- local_audit_server()
  models <- audit_contestants()
  # a contestant of the judge's own model, which signs its answers
  models$selfish <- baseline_chat(function(q) "SELF: an answer.", "selfish")
  run <- suppressWarnings(audit_run(fake_chat(server, "selfish"), models = models,
                                    position_swap = TRUE))
  audit <- judge_audit(run)
  self <- row_of(audit, "self_preference")
  expect_equal(self$estimate, 1)
  # its battles against the three others, in both orders
  expect_equal(self$n, 2 * 3 * nrow(audit_questions))
  expect_true(self$flagged)
  # named by hand: "good" is no better treated than the others by this judge
  mine <- row_of(judge_audit(run, self = "good"), "self_preference")
  expect_lt(mine$estimate, 0.5)
})

test_that("a run's judge that can't be rebuilt must be given, and another judge is said", {
  judge <- arena_baseline_judge("first")
  run <- suppressWarnings(audit_run(judge, settings = request_settings(cache = FALSE)))
  expect_error(judge_audit(run), class = "predictivebench_error_argument")
  expect_warning(
    judge_audit(run, judge = arena_baseline_judge("longer"),
                settings = request_settings(cache = FALSE)),
    class = "predictivebench_warning_audit_judge"
  )
  # the run's log audits as the run does
  same <- judge_audit(run$paths$log, judge = judge, settings = request_settings(cache = FALSE))
  expect_equal(same$estimate, judge_audit(run, judge = judge,
                                          settings = request_settings(cache = FALSE))$estimate)
})

test_that("an arena judge agrees with reference labels and with another judge, battle by battle", {
  server <- local_audit_server()
  oracle <- suppressWarnings(audit_run(fake_chat(server, "oracle"), position_swap = TRUE))
  longer <- suppressWarnings(audit_run(fake_chat(server, "longer"), position_swap = TRUE))
  # the oracle's own verdicts as reference: perfect agreement
  truth <- metadata_field(log_samples(oracle$paths$log)$solver_metadata, "winner_ab")
  audit <- judge_audit(oracle, reference = truth, times = 50)
  agreed <- audit[audit$compared_with %in% "reference", ]
  expect_equal(agreed$metric, c("percent_agreement", "cohen_kappa", "krippendorff_alpha"))
  expect_equal(agreed$estimate, c(1, 1, 1))
  # another judge: the same battles matched by question and models
  versus <- judge_audit(oracle, other = longer, times = 50)
  versus <- versus[versus$compared_with %in% "openai_compatible/longer", ]
  theirs <- metadata_field(log_samples(longer$paths$log)$solver_metadata, "winner_ab")
  expect_equal(versus$estimate[[1]], mean(truth == theirs))
  expect_equal(versus$estimate[[2]], cohen_kappa(truth, theirs))
  expect_equal(versus$n[[1]], 60L)
})

test_that("side_points() counts each verdict for its own side", {
  expect_equal(side_points(c("model_a", "model_b", "tie", "invalid", NA, "model_a"),
                           c("model_a", "model_a", "model_b", "model_a", "model_a", NA)),
               c(1, 0, 0.5, NA, NA, NA))
  expect_equal(arena_own_contestants(c("gpt-4.1", "openai/gpt-4o", "claude", "x/gpt-4.1"),
                                     "openai/gpt-4.1"),
               c("gpt-4.1", "openai/gpt-4o", "x/gpt-4.1"))
})

test_that("the board shows a judge's position consistency beside the ratings it produced", {
  server <- local_audit_server()
  first <- suppressWarnings(audit_run(fake_chat(server, "first"), position_swap = TRUE))
  board <- leaderboard(first$paths$log)
  expect_equal(board$metric, rep("rating", 3))
  # every battle judged in both orders, none kept its verdict: as the audit says
  expect_equal(board$judge_consistency, rep(0, 3))
  # the header that keeps it is still one Inspect reads
  expect_inspect_valid(first$paths$log)
  expect_equal(row_of(judge_audit(first), "position_consistency")$estimate, 0)
  oracle <- suppressWarnings(audit_run(fake_chat(server, "oracle"), position_swap = TRUE))
  expect_equal(unique(leaderboard(oracle$paths$log)$judge_consistency), 1)
  # one order judged: not known without judging the other (judge_audit() does)
  once <- suppressWarnings(audit_run(fake_chat(server, "oracle")))
  expect_true(all(is.na(leaderboard(once$paths$log)$judge_consistency)))
  expect_equal(swap_consistency_counts(c("model_a", "tie", "tie(all bad)", NA, "model_b"),
                                       c("model_b", "tie(all bad)", "tie", "tie", "model_b")),
               c(consistent = 3, both = 4))
})

test_that("a panel of pairwise judges is audited as one, and its members against each other", {
  server <- local_audit_server()
  panel <- list(fake_chat(server, "first"), fake_chat(server, "oracle"),
                fake_chat(server, "longer"))
  settings <- request_settings(cache = withr::local_tempdir(), rpm = Inf)
  run <- suppressWarnings(audit_run(panel, settings = settings))
  # one order judged: the panel judges the swapped orders, and no warning says another judge
  audit <- judge_audit(run, judge = panel, settings = settings, times = 50)
  own <- audit[is.na(audit$compared_with), ]
  expect_equal(unique(own$group), c("panel(first, oracle, longer)", "first", "oracle", "longer"))
  expect_setequal(own$metric[own$group == "panel(first, oracle, longer)"],
                  c("position_consistency", "first_position_win_rate", "longer_answer_win_rate",
                    "unreadable_verdicts"))
  # each member's own unreadable verdicts: none
  expect_equal(own$estimate[own$group != "panel(first, oracle, longer)"], rep(0, 3))
  expect_equal(own$metric[own$group != "panel(first, oracle, longer)"],
               rep("unreadable_verdicts", 3))
  members <- panel_judges(metadata_field(log_samples(run$paths$log)$solver_metadata,
                                         "judges"))
  said <- function(judge) members$winner_ab[members$judge == judge]
  first_oracle <- audit[audit$group == "first" & audit$compared_with %in% "oracle", ]
  expect_equal(first_oracle$estimate[[1]], mean(said("first") == said("oracle")))
  expect_equal(first_oracle$estimate[[2]], cohen_kappa(said("first"), said("oracle")))
  expect_equal(first_oracle$n[[1]], 60L)
  expect_equal(nrow(audit[!is.na(audit$compared_with), ]), 3 * 3)
})

test_that("a run's judge at a server of its own is rebuilt from the base URL its log keeps, without the user's key", {
  server <- local_audit_server()
  settings <- request_settings(rpm = Inf, cache = withr::local_tempdir())
  run <- suppressWarnings(audit_run(fake_chat(server, "first"), settings = settings))
  header <- read_log_header(run$paths$log)
  expect_identical(header$eval$metadata$judge_base_url, server$url)
  # the log keeps the address, never the judge's key
  expect_false(any(grepl("FAKEKEY", readLines(run$paths$log, warn = FALSE), fixed = TRUE)))
  before <- server$count()
  withr::local_envvar(OPENAI_API_KEY = "sk-user-default-key")
  audit <- judge_audit(run, settings = settings)
  battles <- nrow(run$records)
  expect_equal(server$count() - before, battles)  # the swapped orders, at the logged URL
  # a host the log names is not the key's own: the user's key is never sent there
  expect_false(any(grepl("sk-user-default-key", tail(server$auths(), battles), fixed = TRUE)))
  # the same judge given by hand audits the same
  given <- judge_audit(run, judge = fake_chat(server, "first"), settings = settings)
  expect_equal(audit$estimate, given$estimate)
  expect_equal(row_of(audit, "position_consistency")$estimate, 0)
  # a URL holding a key (its query) is not kept: the judge must then be given
  keyed <- ellmer::chat_openai_compatible(base_url = paste0(server$url, "?key=sk-in-url"),
                                          model = "first", credentials = function() "x")
  expect_null(logged_base_url(keyed))
  expect_null(logged_base_url(check_judge(list(fake_chat(server, "first"),
                                               fake_chat(server, "longer")))))
  expect_error(rebuilt_judge("nosuchprovider/first", server$url),
               class = "predictivebench_error_argument")
  # at its provider's own host a judge has the provider's default credentials; elsewhere none
  credentials <- function(chat) chat$get_provider()@credentials()
  expect_equal(credentials(rebuilt_judge("openai/gpt-4.1", "https://api.openai.com/v1")),
               "sk-user-default-key")
  expect_equal(credentials(rebuilt_judge("openai/gpt-4.1", "https://api.openai.com:443/v2")),
               "sk-user-default-key")
  expect_equal(credentials(rebuilt_judge("openai/gpt-4.1", "https://api.openai.com.evil.test/v1")), "")
  expect_equal(credentials(rebuilt_judge("openai/gpt-4.1", "http://api.openai.com/v1")), "")
  expect_false(same_host(NULL, "https://a.test"))
  expect_true(same_host("https://A.test/v1", "https://a.test:443"))
})

test_that("the audit counts each judge's unreadable verdicts and flags a judge that gives none readable", {
  never <- baseline_chat("True", "judge-ds")
  run <- suppressWarnings(audit_run(never))
  audit <- judge_audit(run, judge = never, times = 50)
  unreadable <- row_of(audit, "unreadable_verdicts")
  expect_equal(unreadable$estimate, 1)
  expect_equal(unreadable$n, nrow(run$records))
  expect_true(unreadable$flagged)
  # a judge whose every verdict reads: 0, not flagged
  fine <- arena_baseline_judge("first")
  read <- row_of(judge_audit(suppressWarnings(audit_run(fine)), judge = fine, times = 50),
                 "unreadable_verdicts")
  expect_equal(read$estimate, 0)
  expect_false(read$flagged)
  # a panel: each member's own count, the never-readable member flagged
  panel <- list(fine, never)
  both <- suppressWarnings(audit_run(panel))
  audit <- judge_audit(both, judge = panel, times = 50)
  members <- audit[audit$metric == "unreadable_verdicts", ]
  expect_equal(members$estimate[members$group == "judge-ds"], 1)
  expect_true(members$flagged[members$group == "judge-ds"])
  expect_equal(members$estimate[members$group == "arena-baseline-judge-first"], 0)
})

test_that("agreement with reference labels leaves unreadable verdicts out", {
  # unreadable on the first four questions, the first answer preferred on the others
  judge <- baseline_chat(function(prompt) {
    if (grepl("Question [1-4]\\b", prompt)) "True" else '{"winner": 1, "explanation": "x"}'
  }, "patchy")
  run <- suppressWarnings(audit_run(judge))
  winner <- metadata_field(log_samples(run$paths$log)$solver_metadata, "winner")
  readable <- winner != "invalid"
  expect_true(any(!readable) && any(readable))
  # the reference agrees with every readable verdict, and calls the others "model_b"
  reference <- ifelse(readable, winner, "model_b")
  agreed <- judge_audit(run, judge = judge, reference = reference, times = 50)
  agreed <- agreed[agreed$compared_with %in% "reference", ]
  expect_equal(agreed$estimate[agreed$metric == "percent_agreement"], 1)
  expect_equal(agreed$n[[1]], sum(readable))
})

test_that("a judge whose log keeps no base URL is asked for, never rebuilt at its provider's default host", {
  verdict <- '{"winner": 1, "explanation": "Fake judge."}'
  ran_at <- local_fake_ollama(chat = verdict, model = "qwen3")
  default <- local_fake_ollama(chat = verdict, model = "qwen3")
  # the team's gateway: a password in the URL, so the log rightly keeps no URL
  url <- sub("^http://", "http://team:s3cret@", sub("/v1$", "", ran_at$url))
  judge <- ellmer::chat_ollama(base_url = url, model = "qwen3")
  settings <- request_settings(rpm = Inf, cache = withr::local_tempdir())
  run <- suppressWarnings(audit_run(judge, settings = settings))
  expect_null(read_log_header(run$paths$log)$eval$metadata$judge_base_url)
  # the provider's default host is the second server
  withr::local_envvar(OLLAMA_BASE_URL = sub("/v1$", "", default$url))
  before <- default$count()
  expect_error(judge_audit(run, settings = settings), "judge =",
               class = "predictivebench_error_argument")
  expect_equal(default$count() - before, 0)
  # given, the judge audits at its own server
  asked <- ran_at$count()
  audit <- judge_audit(run, judge = judge, settings = settings)
  expect_equal(ran_at$count() - asked, nrow(run$records))
  expect_equal(row_of(audit, "position_consistency")$n, nrow(run$records))
  expect_equal(default$count() - before, 0)
  # nor does a URL holding a user or a key name where to rebuild it
  expect_error(rebuilt_judge("ollama/qwen3", url), "judge =",
               class = "predictivebench_error_argument")
  expect_error(rebuilt_judge("openai/gpt-4.1"), "judge =", class = "predictivebench_error_argument")
})

test_that("a panel's log is audited with the panel given again, as the error says", {
  server <- local_audit_server()
  panel <- list(fake_chat(server, "first"), fake_chat(server, "longer"))
  run <- suppressWarnings(audit_run(panel))
  expect_error(judge_audit(run), "A panel's judges are not rebuilt from its log",
               class = "predictivebench_error_argument")
})
