# Worked by hand: five items rated by two raters.
#   item:  1  2  3  4  5
#   x:     a  a  b  b  a
#   y:     a  b  b  b  a
# Percent agreement: items 1, 3, 4, 5 agree: 4 / 5 = 0.8.
# Cohen's kappa: x gives a 3/5, b 2/5; y gives a 2/5, b 3/5. Chance agreement
#   p_e = 3/5 * 2/5 + 2/5 * 3/5 = 12/25 = 0.48, so kappa = (0.8 - 0.48) / (1 - 0.48)
#   = 0.32 / 0.52 = 8/13.
# Krippendorff's alpha (nominal): every item has two values, so each adds its two ordered
#   pairs with weight 1 / (2 - 1) = 1: items 1 and 5 add o_aa = 2 each (4), items 3 and 4
#   o_bb = 2 each (4), item 2 o_ab = o_ba = 1. Pairable values n = 10, n_a = n_b = 5.
#   Observed disagreement (off-diagonal) D = 2; E = n^2 - sum(n_c^2) = 100 - 50 = 50;
#   alpha = 1 - (n - 1) * D / E = 1 - 9 * 2 / 50 = 0.64.
hand_x <- c("a", "a", "b", "b", "a")
hand_y <- c("a", "b", "b", "b", "a")

test_that("agreement statistics equal the hand-worked values", {
  expect_equal(percent_agreement(hand_x, hand_y), 0.8)
  expect_equal(cohen_kappa(hand_x, hand_y), 8 / 13)
  expect_equal(krippendorff_alpha(hand_x, hand_y), 0.64)
  # the same as a matrix of raters
  expect_equal(krippendorff_alpha(cbind(hand_x, hand_y)), 0.64)
})

# Worked by hand with a missing rating and three labels:
#   x: a  b  c  a  NA
#   y: a  b  b  a  c
# Item 5 is left out (one rating): four pairs, three agree: 0.75.
# kappa: x gives a 2/4, b 1/4, c 1/4; y gives a 2/4, b 2/4, c 0.
#   p_e = 1/2 * 1/2 + 1/4 * 1/2 + 1/4 * 0 = 3/8; kappa = (3/4 - 3/8) / (5/8) = 3/5.
# alpha: item 5 is not pairable. Coincidences: o_aa = 4 (items 1, 4), o_bb = 2 (item 2),
#   o_bc = o_cb = 1 (item 3). n_a = 4, n_b = 3, n_c = 1, n = 8.
#   D = 2; E = 64 - (16 + 9 + 1) = 38; alpha = 1 - 7 * 2 / 38 = 1 - 14/38 = 12/19.
test_that("missing labels are left out, by hand", {
  x <- c("a", "b", "c", "a", NA)
  y <- c("a", "b", "b", "a", "c")
  expect_equal(percent_agreement(x, y), 0.75)
  expect_equal(cohen_kappa(x, y), 3 / 5)
  expect_equal(krippendorff_alpha(x, y), 12 / 19)
})

test_that("labels compare as text, and undefined statistics are NA", {
  expect_equal(percent_agreement(c(TRUE, FALSE), c("TRUE", "FALSE")), 1)
  # one label throughout: chance explains everything
  expect_true(is.na(cohen_kappa(c("a", "a"), c("a", "a"))))
  expect_true(is.na(krippendorff_alpha(c("a", "a"), c("a", "a"))))
  expect_true(is.na(percent_agreement(c(NA, "a"), c("a", NA))))
  expect_error(cohen_kappa(c("a", "b"), "a"), class = "predictivebench_error_argument")
  expect_error(krippendorff_alpha("a"), class = "predictivebench_error_argument")
})

test_that("kappa and alpha equal irr's kappa2() and kripp.alpha()", {
  skip_if_not_installed("irr")
  withr::local_seed(11)
  for (trial in 1:5) {
    x <- sample(c("model_a", "model_b", "tie"), 40, TRUE, prob = c(0.5, 0.3, 0.2))
    y <- ifelse(stats::runif(40) < 0.7, x, sample(c("model_a", "model_b", "tie"), 40, TRUE))
    y[sample.int(40, 3)] <- NA
    ratings <- data.frame(x = x, y = y)
    expect_equal(cohen_kappa(x, y), irr::kappa2(ratings[stats::complete.cases(ratings), ])$value)
    # irr takes numeric codes for its categories
    codes <- t(sapply(ratings, match, c("model_a", "model_b", "tie")))
    expect_equal(krippendorff_alpha(x, y), irr::kripp.alpha(codes, method = "nominal")$value)
  }
  # three raters with gaps
  m <- cbind(sample(letters[1:3], 30, TRUE), sample(letters[1:3], 30, TRUE),
             sample(letters[1:3], 30, TRUE))
  m[sample.int(90, 10)] <- NA
  codes <- matrix(match(m, letters), nrow = nrow(m))
  expect_equal(krippendorff_alpha(m), irr::kripp.alpha(t(codes), method = "nominal")$value)
  expect_equal(krippendorff_alpha(hand_x, hand_y),
               irr::kripp.alpha(rbind(match(hand_x, letters), match(hand_y, letters)),
                                method = "nominal")$value)
  expect_equal(cohen_kappa(hand_x, hand_y), irr::kappa2(cbind(hand_x, hand_y))$value)
})

test_that("agreement_summary() gives summary rows with seeded clustered intervals", {
  x <- rep(c("a", "b", "a", "b", "a"), 8)
  y <- rep(c("a", "b", "b", "b", "a"), 8)
  rows <- agreement_summary(x, y, cluster = rep(1:8, each = 5), group = "judge vs gold",
                            times = 200)
  expect_named(rows, c("group", "metric", "estimate", "lower", "upper", "n"))
  expect_equal(rows$metric, c("percent_agreement", "cohen_kappa", "krippendorff_alpha"))
  expect_equal(rows$estimate[[1]], 0.8)
  expect_equal(rows$n, rep(40L, 3))
  # every cluster is the same five items: resampling clusters cannot move the estimate
  expect_equal(rows$lower, rows$estimate)
  expect_equal(rows$upper, rows$estimate)
  # items resampled one by one: a real interval, the same for the same seed
  free <- agreement_summary(x, y, times = 200)
  expect_true(all(free$lower < free$estimate & free$upper > free$estimate))
  expect_identical(free, agreement_summary(x, y, times = 200))
  expect_false(identical(free$lower, agreement_summary(x, y, times = 200, seed = 2)$lower))
})
