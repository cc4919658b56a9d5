library(testthat)
library(predictivebench)

test_check("predictivebench")
