# FutureX's prompts: the questions' own come from the task table; the one built here asks the
# optional normalization judge to put a prediction in the ground truth's unit, as eval.py does.

futurex_normalize_prompt <- function(truth, pred) {
  paste0(
    " \nGround Truth: ", truth, "\nPrediction: ", pred, "\n\n",
    "Task: Convert the prediction to match the SAME format and unit as the ground truth.\n\n",
    "Examples:\n",
    "- Ground Truth: \"10362 millions yuan\", Prediction: \"10362000000\" \n",
    "  \u2192 Ground Truth Value: 10362, Prediction Value: 10362\n  \n",
    "- Ground Truth: \"4522.61\", Prediction: \"4.52261 thousand\"\n",
    "  \u2192 Ground Truth Value: 4522.61, Prediction Value: 4522.61\n\n",
    "- Ground Truth: \"12740 million\", Prediction: \"12.74 billion\"\n",
    "  \u2192 Ground Truth Value: 12740, Prediction Value: 12740\n\n",
    "- Ground Truth: \"15.5 billion\", Prediction: \"15500 million\"\n",
    "  \u2192 Ground Truth Value: 15.5, Prediction Value: 15.5\n\n",
    "IMPORTANT: \n",
    "1. Keep the SAME unit as ground truth (if GT is \"millions yuan\", convert prediction to ",
    "millions yuan) \uff01\n",
    "2. Extract only the numeric value, ignore unit text\n",
    "3. If there is no numeric value in Prediction, set PREDICTION_VALUE to 0 directly\n",
    "4. Return ONLY two numbers in this exact format:\n",
    "   GROUND_TRUTH_VALUE: [number]\n",
    "   PREDICTION_VALUE: [number]\n",
    "5. No explanation, just the two numbers.\n\n",
    "Now normalize:\n"
  )
}
