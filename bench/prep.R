# Flattening time per benchmark, on generated inputs of realistic size, for every flattener
# the Python package registers when this runs (python/predictivebench/registry.py).
# For each: the Python flattener alone (predictivebench.prepare(), timed inside Python) and
# the R entry point prepare_task_table() end to end (reticulate, JSON hand-over, schema
# check, nanoparquet write).
#
# Run from the package root:  Rscript bench/prep.R  [scale]   (scale 1 = the sizes below)
suppressMessages(pkgload::load_all(".", quiet = TRUE))
source("bench/helper-fake-server.R")
Sys.setenv(RETICULATE_PYTHON = Sys.getenv("RETICULATE_PYTHON", "/usr/bin/python3"))
args <- commandArgs(trailingOnly = TRUE)
scale <- if (length(args) >= 1) as.double(args[[1]]) else 1
cat(machine_line(), "\n")

generator <- r"---(
import json, os, random, sys, time
sys.path.insert(0, sys.argv[1])
out, scale = sys.argv[2], float(sys.argv[3])
import predictivebench as pb
from predictivebench.registry import available
rng = random.Random(1)
words = "the of market rate index growth season team vote price city ferry rain award".split()
def text(n):
    return " ".join(rng.choice(words) for _ in range(n))

def futurex(root):
    # FutureX: a JSON array of questions, prompts of ~250 words (5,000 questions)
    n = int(5000 * scale)
    items = [{"id": f"fx-{i}", "prompt": text(250), "end_time": "2026-01-01",
              "level": 1 + i % 4, "ground_truth": "A" if i % 4 < 2 else "12.5",
              "Std": 2.0 if i % 4 >= 2 else None} for i in range(n)]
    path = os.path.join(root, "futurex.json")
    json.dump(items, open(path, "w"))
    return path, {}, n

def processbench(root):
    # ProcessBench: one split of 3,400 solutions, ~12 steps of ~40 words
    n = int(3400 * scale)
    path = os.path.join(root, "math.jsonl")
    with open(path, "w") as f:
        for i in range(n):
            steps = [text(40) for _ in range(12)]
            f.write(json.dumps({"id": f"pb-{i}", "generator": "m", "problem": text(60),
                                "steps": steps, "final_answer_correct": i % 2 == 0,
                                "label": (i % 13) - 1}) + "\n")
    return path, {}, n

def deltabench(root):
    # DeltaBench: 1,236 long chains of thought, ~25 sections of ~120 words
    n = int(1236 * scale)
    path = os.path.join(root, "deltabench.jsonl")
    with open(path, "w") as f:
        for i in range(n):
            sections = [{"content": text(120)} for _ in range(25)]
            f.write(json.dumps({"id": f"db-{i}", "question": text(80), "task_l1": "math",
                                "sections": sections, "reason_error_section_numbers": [3, 7],
                                "reason_unuseful_section_numbers": [2] if i % 5 == 0 else [],
                                "final_correct": 1}) + "\n")
    return path, {}, n

def dsbench(root):
    # DSBench data analysis: 38 competitions, 466 questions, one workbook each (2 sheets x
    # 400 rows x 8 columns)
    import openpyxl
    n_comp = max(1, int(38 * scale))
    per = 466 // 38
    data = os.path.join(root, "dsbench")
    os.makedirs(os.path.join(data, "data"))
    lines = []
    for c in range(n_comp):
        cid = f"comp{c:03d}"
        folder = os.path.join(data, "data", cid)
        os.makedirs(folder)
        wb = openpyxl.Workbook()
        for s in range(2):
            ws = wb.active if s == 0 else wb.create_sheet(f"Sheet{s + 1}")
            ws.append([f"col{j}" for j in range(8)])
            for r in range(400):
                ws.append([rng.random() * 1000 if j % 2 else rng.choice(words) for j in range(8)])
        wb.save(os.path.join(folder, "data.xlsx"))
        open(os.path.join(folder, "introduction.txt"), "w").write(text(300))
        qs = [f"question{k + 1}" for k in range(per)]
        for q in qs:
            open(os.path.join(folder, q + ".txt"), "w").write(text(60))
        lines.append(json.dumps({"id": cid, "name": cid, "year": 2024, "questions": qs,
                                 "answers": ["B"] * per}))
    open(os.path.join(data, "data.json"), "w").write("\n".join(lines) + "\n")
    return data, {}, n_comp * per

def probsem(root):
    # probsem: a prompt and 10 suites of 40 contexts x 6 queries
    folder = os.path.join(root, "probsem")
    os.makedirs(folder)
    open(os.path.join(folder, "story.txt"), "w").write(text(400) + "\n")
    n = 0
    for s in range(max(1, int(10 * scale))):
        queries = [f"Query {q}: {text(8)}" for q in range(6)]
        context = [{"text": text(60), "expected": c % 6} for c in range(40)]
        n += len(context)
        json.dump({"pretext": "Context:", "context": context, "posttext": "", "queries": queries},
                  open(os.path.join(folder, f"story_S{s}.json"), "w"))
    return os.path.join(folder, "story.txt"), {}, n

def arena(root):
    # EloBench: questions.csv as pandas writes it, 3,000 questions with repeats (5,000 rows)
    import csv
    n = int(5000 * scale)
    path = os.path.join(root, "questions.csv")
    questions = [f"Question {q}: " + text(40) for q in range(3000)]
    with open(path, "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC)
        w.writerow(["", "question"])
        for i in range(n):
            w.writerow([i, questions[i % 3000]])
    return path, {}, n

generators = {"arena": arena, "futurex": futurex, "processbench": processbench, "deltabench": deltabench,
              "dsbench": dsbench, "probsem": probsem}
results = []
for name in sorted(available()):
    if name not in generators:
        results.append({"benchmark": name, "status": "no input generator in bench/prep.R"})
        continue
    root = os.path.join(out, name)
    os.makedirs(root)
    source, options, n = generators[name](root)
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(root) for f in fs)
    started = time.perf_counter()
    table = pb.prepare(name, source, **options)
    seconds = time.perf_counter() - started
    results.append({"benchmark": name, "status": "ok", "source": source, "rows": len(table),
                    "input_mb": size / 2**20, "python_seconds": seconds})
json.dump(results, open(os.path.join(out, "results.json"), "w"))
)---"

dir <- tempfile("prep-")
dir.create(dir)
script <- file.path(dir, "generate.py")
writeLines(generator, script)
status <- system2(Sys.getenv("RETICULATE_PYTHON"), c(script, file.path(getwd(), "inst", "python"), dir, scale))
if (status != 0) stop("the generator failed")
results <- jsonlite::read_json(file.path(dir, "results.json"))
invisible(python_module())  # start Python once, outside the timings
cat(sprintf("\nscale %.2f\n", scale))
for (r in results) {
  if (r$status != "ok") {
    cat(sprintf("%-13s %s\n", r$benchmark, r$status))
    next
  }
  out <- tempfile(fileext = ".parquet")
  seconds <- tryCatch(wall(prepare_task_table(r$benchmark, r$source, out = out)),
                      error = function(e) e)
  if (inherits(seconds, "error")) {
    cat(sprintf("%-13s Python flattener %.2f s; R prepare_task_table() FAILED: %s\n",
                r$benchmark, r$python_seconds, conditionMessage(seconds)))
    next
  }
  rows <- nanoparquet::read_parquet_info(out)$num_rows
  cat(sprintf(paste0("%-13s %6d rows from %6.1f MB: Python flattener %6.2f s (%5.2f ms/row); ",
                     "R prepare_task_table() to parquet %6.2f s (%5.2f ms/row)\n"),
              r$benchmark, rows, r$input_mb, r$python_seconds,
              1000 * r$python_seconds / rows, seconds, 1000 * seconds / rows))
}
