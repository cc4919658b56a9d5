# Chats of each shape for the translator's oracle (test-log-samples.R): a plain prompt and
# answer, a system prompt, two turns, a tool round; a judge's chat when the scorer has one.
shapes <- c("plain", "system", "two", "tool")

shape_dataset <- function() {
  tibble::tibble(input = paste("What is", seq_along(shapes), "+ 2?"), target = "4")
}

shape_reply <- function(body, n) {
  roles <- vapply(body$messages, function(m) m$role, "")
  if (length(body$tools) && !"tool" %in% roles) {
    return(list(json = list(
      id = paste0("chatcmpl-", n), object = "chat.completion", created = 0L, model = "fake",
      choices = list(list(index = 0L, finish_reason = "tool_calls", message = list(
        role = "assistant", content = NULL, tool_calls = list(list(
          id = paste0("call_", n), type = "function",
          `function` = list(name = "weather", arguments = "{\"city\":\"Oslo\"}")
        ))
      ))),
      usage = list(prompt_tokens = 10L, completion_tokens = 5L, total_tokens = 15L)
    )))
  }
  paste("The answer, after some thought about", last_user_text(body), "is 4.",
        strrep("Really. ", 12))
}

shape_solver <- function(inputs, ..., solver_chat) {
  chats <- lapply(seq_along(inputs), function(i) {
    chat <- solver_chat$clone()
    shape <- shapes[[i]]
    if (shape == "system") chat$set_system_prompt(paste("You add.", strrep("Carefully. ", 12)))
    if (shape == "tool") {
      chat$register_tool(ellmer::tool(function(city) "sunny", name = "weather",
                                      description = "The weather.",
                                      arguments = list(city = ellmer::type_string())))
    }
    chat$chat(inputs[[i]], echo = "none")
    if (shape == "two") chat$chat("And again?", echo = "none")
    chat
  })
  list(result = vapply(chats, function(chat) chat$last_turn()@text, ""), solver_chat = chats)
}

shape_scorer <- function(judge) {
  function(samples, ...) {
    out <- list(score = rep(1, nrow(samples)))
    if (!is.null(judge)) {
      out$scorer_chat <- lapply(samples$result, function(result) {
        chat <- judge$clone()
        chat$chat(paste("Judge:", substr(result, 1, 20)), echo = "none")
        chat
      })
    }
    out
  }
}
