# OpenAI's tokenizer through rtiktoken (in Suggests), shared by DSBench's truncation and
# estimate_cost(): whether it is there, and the encoding tiktoken uses for a model.

tiktoken_installed <- function() requireNamespace("rtiktoken", quietly = TRUE)

tiktoken_encodings <- c("o200k_base", "cl100k_base", "p50k_base", "p50k_edit", "r50k_base")

# The encoding of tiktoken.encoding_for_model(model) (an encoding name stays as it is), or
# NULL when rtiktoken is absent or tiktoken does not know the model.
tiktoken_encoding <- function(model) {
  if (model %in% tiktoken_encodings) return(model)
  if (!tiktoken_installed()) return(NULL)
  tryCatch(rtiktoken::model_to_tokenizer(model), error = function(e) NULL)
}
