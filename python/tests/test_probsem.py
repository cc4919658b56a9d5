import json
import subprocess
import sys
from pathlib import Path

import pytest

from predictivebench import PredictiveBenchError, prepare, table_columns
from predictivebench.probsem import context_text, prepare_probsem, scored_prefix

REPO = Path(__file__).resolve().parents[2]
PYTHON_DIR = REPO / "inst" / "python"  # the module's one copy
REFERENCE = REPO.parent / "shared" / "reference" / "probsem"

PROMPT = "Read the note.\nThe lamp is on.\n"


def suite(**overrides):
    base = {
        "pretext": "Answer yes or no.",
        "context": [{"text": "Is the lamp on?", "expected": 0},
                    {"text": "Is the lamp off?\nThink twice.", "expected": 1},
                    {"text": "", "expected": -1}],
        "posttext": "Answer:",
        "queries": ["yes", "no"],
    }
    base.update(overrides)
    return base


def write_benchmark(tmp_path, suites, prompt=PROMPT, name="lamp"):
    prompt_file = tmp_path / f"{name}.txt"
    prompt_file.write_bytes(prompt.encode("utf-8"))
    for suite_name, data in suites.items():
        (tmp_path / f"{name}_{suite_name}.json").write_text(json.dumps(data), encoding="utf-8")
    return str(prompt_file)


def original_full_text(prompt, data, context, query_index):
    """The original's assembly, written out independently: join non-empty parts, split off
    the last line as the query, then join prompt, text and query with newlines."""
    parts = [data["pretext"], context["text"], data["posttext"], data["queries"][query_index]]
    sample = "\n".join(p for p in parts if p != "")
    text = "\n".join(sample.split("\n")[:-1])
    query = sample.split("\n")[-1]
    return "\n".join([prompt, text, query])


def test_one_row_per_context_with_queries_and_expected(tmp_path):
    path = write_benchmark(tmp_path, {"B": suite(), "A": suite(queries=["on", "off", "unsure"])})
    df = prepare("probsem", path)
    assert list(df["id"]) == ["A-0", "A-1", "A-2", "B-0", "B-1", "B-2"]
    assert list(df["suite"]) == ["A", "A", "A", "B", "B", "B"]
    assert list(df["context_index"]) == [0, 1, 2, 0, 1, 2]
    assert list(df["expected"]) == [0, 1, -1, 0, 1, -1]
    assert list(df["queries"][0]) == ["on", "off", "unsure"]
    assert list(df["target"][:3]) == ["on", "off", None]
    assert set(df["prompt"]) == {"lamp"}


def test_texts_are_assembled_as_the_original(tmp_path):
    data = suite()
    path = write_benchmark(tmp_path, {"A": data})
    df = prepare("probsem", path)
    # Worked out by hand: the prompt keeps its trailing newline, then one "\n" separator.
    assert df["input"][0] + "yes" == (
        "Read the note.\nThe lamp is on.\n\nAnswer yes or no.\nIs the lamp on?\nAnswer:\nyes")
    assert df["text"][1] == "Answer yes or no.\nIs the lamp off?\nThink twice.\nAnswer:"
    # An empty context text is left out, not kept as a blank line.
    assert df["text"][2] == "Answer yes or no.\nAnswer:"
    for row in range(3):
        for q in range(2):
            assert df["input"][row] + data["queries"][q] == original_full_text(
                PROMPT, data, data["context"][row], q)


def test_all_empty_parts_give_the_originals_blank_line(tmp_path):
    data = suite(pretext="", posttext="", context=[{"text": "", "expected": 0}])
    path = write_benchmark(tmp_path, {"A": data})
    df = prepare("probsem", path)
    assert df["text"][0] == ""
    assert df["input"][0] + "yes" == PROMPT + "\n\nyes"
    assert df["input"][0] + "yes" == original_full_text(PROMPT, data, data["context"][0], 0)


def test_helpers():
    assert context_text("a", "", "c") == "a\nc"
    assert context_text("", "", "") == ""
    assert scored_prefix("P\n", "t") == "P\n\nt\n"


def test_named_suites_and_prompt_without_extension(tmp_path):
    path = write_benchmark(tmp_path, {"A": suite(), "B": suite(), "C": suite()})
    df = prepare_probsem(path[:-len(".txt")], suites=["C", "A"])
    assert list(dict.fromkeys(df["suite"])) == ["C", "A"]
    with pytest.raises(PredictiveBenchError) as error:
        prepare_probsem(path, suites=["Z"])
    assert error.value.kind == "missing_file"
    assert "lamp_Z.json" in str(error.value)


def test_no_suites_is_a_clear_error(tmp_path):
    path = write_benchmark(tmp_path, {})
    with pytest.raises(PredictiveBenchError) as error:
        prepare("probsem", path)
    assert "lamp_<suite>.json" in error.value.message


def test_missing_prompt_file(tmp_path):
    with pytest.raises(PredictiveBenchError) as error:
        prepare("probsem", str(tmp_path / "nope.txt"))
    assert error.value.kind == "missing_file"


@pytest.mark.parametrize("queries, problem", [
    (["yes", "no\nmaybe"], "single line"),
    (["yes", "no", "yes"], "unique"),
    (["yes", ""], "empty"),
    (["yes", 3], "must be a string"),
    ([], "non-empty"),
])
def test_bad_queries_name_suite_and_query(tmp_path, queries, problem):
    path = write_benchmark(tmp_path, {"S1": suite(queries=queries,
                                                  context=[{"text": "x", "expected": 0}])})
    with pytest.raises(PredictiveBenchError) as error:
        prepare("probsem", path)
    assert problem in error.value.message
    assert "suite 'S1'" in error.value.message
    assert error.value.field == "queries"
    assert error.value.file.endswith("lamp_S1.json")


def test_repeated_query_says_which(tmp_path):
    path = write_benchmark(tmp_path, {"A": suite(queries=["yes", "no", "yes"])})
    with pytest.raises(PredictiveBenchError) as error:
        prepare("probsem", path)
    assert "query 2 'yes'" in error.value.message
    assert "query 0" in error.value.message


@pytest.mark.parametrize("context, field", [
    ([{"text": "x", "expected": 2}], "context.expected"),
    ([{"text": "x", "expected": -2}], "context.expected"),
    ([{"text": "x", "expected": True}], "context.expected"),
    ([{"text": "x", "expected": "0"}], "context.expected"),
    ([{"text": 1, "expected": 0}], "context.text"),
    ([{"expected": 0}], "context.text"),
    ([], "context"),
    (["x"], "context"),
])
def test_bad_contexts(tmp_path, context, field):
    path = write_benchmark(tmp_path, {"A": suite(context=context)})
    with pytest.raises(PredictiveBenchError) as error:
        prepare("probsem", path)
    assert error.value.field == field


def test_missing_keys_and_bad_json(tmp_path):
    data = suite()
    del data["posttext"]
    path = write_benchmark(tmp_path, {"A": data})
    with pytest.raises(PredictiveBenchError) as error:
        prepare("probsem", path)
    assert error.value.field == "posttext"
    (tmp_path / "lamp_A.json").write_text("{\"pretext\": ", encoding="utf-8")
    with pytest.raises(PredictiveBenchError) as error:
        prepare("probsem", path)
    assert error.value.kind == "json"
    (tmp_path / "lamp_A.json").write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(PredictiveBenchError) as error:
        prepare("probsem", path)
    assert error.value.kind == "json"


def test_unicode_and_multiline_parts_survive_the_json_bridge(tmp_path):
    data = suite(pretext="Réponds:\n- oui\n- non", posttext="→", queries=["oui", "non"])
    path = write_benchmark(tmp_path, {"A": data}, prompt="Préambule\r\nligne\n")
    columns = json.loads(table_columns(prepare("probsem", path), "probsem"))["columns"]
    # Like the original's open(..., "r"), Windows line ends in the prompt read as "\n".
    assert columns["input"][0] == "Préambule\nligne\n\nRéponds:\n- oui\n- non\nIs the lamp on?\n→\n"
    assert columns["queries"][0] == ["oui", "non"]
    assert columns["target"][2] is None


def test_cli_lists_the_suite_option():
    out = subprocess.run([sys.executable, "-m", "predictivebench", "prepare", "probsem", "-h"],
                         cwd=PYTHON_DIR, capture_output=True, text=True)
    assert out.returncode == 0
    assert "--suite" in out.stdout


@pytest.mark.skipif(not REFERENCE.exists(), reason="../shared/reference/probsem is absent")
def test_walkthrough_suites_byte_for_byte():
    prompt = (REFERENCE / "test.txt").read_bytes().decode("utf-8")
    df = prepare("probsem", str(REFERENCE / "test.txt"))
    assert list(df["id"]) == ["A-0", "A-1", "B-0"]
    assert list(df["expected"]) == [0, 1, -1]
    a = json.loads((REFERENCE / "test_A.json").read_text(encoding="utf-8"))
    b = json.loads((REFERENCE / "test_B.json").read_text(encoding="utf-8"))
    first = prompt + "\n" + a["pretext"] + "\n" + a["context"][0]["text"] + "\n" + \
        a["posttext"] + "\n"
    assert df["input"][0] == first
    assert df["input"][0].endswith(
        "\nThe following questions are based on the above text, and should be answered True "
        "or False.\nThe author is discussing the role of LLMs in Wikipedia editing.\n"
        "The correct answer is:\n")
    assert (df["input"][2] + "D").endswith("C) Mostly negative.\nD) Only negative.\n"
                                          "The correct answer is:\nD")
    for row, (data, index) in enumerate([(a, 0), (a, 1), (b, 0)]):
        for q, query in enumerate(data["queries"]):
            assert (df["input"][row] + query).encode("utf-8") == original_full_text(
                prompt, data, data["context"][index], q).encode("utf-8")


# ---- the CogSci 2023 paper's suite format: premise, context, query, programs -------------

def paper_suite(**overrides):
    base = {
        "premise": ";; The kettle game.",
        "context": [{"text": ";; Mia is quick.", "expected": 1},
                    {"text": ";; Mia is slow.", "expected": -1}],
        "query": ";;",
        "programs": ["(condition (> (speed 'mia) 10))", "(condition (> (speed 'mia) 50))"],
    }
    base.update(overrides)
    return base


def paper_full_text(prompt, data, context, program):
    """The paper-era original (commit 5d0c92c), written out independently: premise, context
    text, query and program with every part equal to ";;" dropped, joined with newlines; the
    last line is the program; the scored text is prompt, text and program joined."""
    parts = [p for p in (data["premise"], context["text"], data["query"], program) if p != ";;"]
    sample = "\n".join(parts)
    text = "\n".join(sample.split("\n")[:-1])
    return "\n".join([prompt, text, sample.split("\n")[-1]])


@pytest.mark.parametrize("query", [";;", ";; Who wins?"])
def test_paper_format_programs_are_the_queries(tmp_path, query):
    data = paper_suite(query=query)
    path = write_benchmark(tmp_path, {"AV-1a": data}, name="tug")
    df = prepare("probsem", path)
    assert list(df["id"]) == ["AV-1a-0", "AV-1a-1"]
    assert list(df["queries"][0]) == data["programs"]
    assert list(df["expected"]) == [1, -1]
    assert list(df["target"]) == [data["programs"][1], None]
    for i, context in enumerate(data["context"]):
        for program in data["programs"]:
            assert df["input"][i] + program == paper_full_text(PROMPT, data, context, program)
    if query == ";;":
        assert df["text"][0] == ";; The kettle game.\n;; Mia is quick."
    else:
        assert df["text"][0] == ";; The kettle game.\n;; Mia is quick.\n;; Who wins?"


def test_paper_format_drops_every_bare_premise_and_query(tmp_path):
    # The tug-of-war suites have premise ";;" and query ";;": the scored text is the prompt,
    # the context's own line and the program, nothing between them.
    data = paper_suite(premise=";;", query=";;")
    df = prepare("probsem", write_benchmark(tmp_path, {"A": data}))
    assert df["text"][0] == ";; Mia is quick."
    assert df["input"][0] == PROMPT + "\n;; Mia is quick.\n"
    only_program = paper_suite(premise=";;", query=";;",
                               context=[{"text": ";;", "expected": 0}])
    df = prepare("probsem", write_benchmark(tmp_path, {"B": only_program}, name="solo"))
    program = only_program["programs"][0]
    assert df["input"][0] + program == PROMPT + "\n\n" + program
    assert df["input"][0] + program == paper_full_text(PROMPT, only_program,
                                                       only_program["context"][0], program)


def test_paper_format_keeps_empty_parts(tmp_path):
    # The current format drops an empty part; the paper's joins every part.
    data = paper_suite(premise="", context=[{"text": ";; Mia is quick.", "expected": 0}])
    df = prepare("probsem", write_benchmark(tmp_path, {"A": data}))
    assert df["text"][0] == "\n;; Mia is quick."


def test_both_formats_side_by_side(tmp_path):
    path = write_benchmark(tmp_path, {"A": suite(), "B": paper_suite()})
    df = prepare("probsem", path)
    assert list(df["suite"]) == ["A", "A", "A", "B", "B"]
    assert list(df["queries"][3]) == paper_suite()["programs"]


@pytest.mark.parametrize("data, field", [
    (paper_suite(programs=[]), "programs"),
    (paper_suite(programs="(x)"), "programs"),
    ({k: v for k, v in paper_suite().items() if k != "query"}, "query"),
    (paper_suite(premise=3), "premise"),
    (dict(paper_suite(), queries=["a"]), "premise"),
    (paper_suite(context=[{"text": ";; a", "expected": 5}]), "context.expected"),
])
def test_bad_paper_suites_name_the_field(tmp_path, data, field):
    path = write_benchmark(tmp_path, {"A": data})
    with pytest.raises(PredictiveBenchError) as err:
        prepare("probsem", path)
    assert err.value.field == field


COGSCI = REPO.parent / "shared" / "reference" / "probsem-cogsci2023"


@pytest.mark.skipif(not COGSCI.exists(),
                    reason="../shared/reference/probsem-cogsci2023 is absent")
@pytest.mark.parametrize("suite_name", ["AV-1a", "AV-1b"])
def test_cogsci2023_texts_equal_the_published_results(suite_name):
    import pandas as pd
    prompt = (COGSCI / "tug-of-war.txt").read_bytes().decode("utf-8")
    data = json.loads((COGSCI / f"tug-of-war_{suite_name}.json").read_text(encoding="utf-8"))
    df = prepare("probsem", str(COGSCI / "tug-of-war.txt"), suites=[suite_name])
    published = pd.read_csv(COGSCI / f"tug-of-war_{suite_name}_code-davinci-002_results.csv",
                            keep_default_na=False)
    assert len(df) == len(data["context"]) == 9
    # The original's results table holds, per sentence and program, the text it scored.
    pairs = [(df["text"][i], program) for i in range(len(df)) for program in df["queries"][i]]
    assert pairs == list(zip(published["text"], published["program"]))
    for i, context in enumerate(data["context"]):
        assert df["text"][i] == context["text"]
        for program in data["programs"]:
            assert df["input"][i] + program == paper_full_text(prompt, data, context, program)
            assert df["input"][i] + program == prompt + "\n" + context["text"] + "\n" + program


def test_on_error_skip_leaves_out_a_broken_suite(tmp_path, capsys):
    path = write_benchmark(tmp_path, {"A": suite(), "B": suite(queries=[])})
    (tmp_path / "lamp_C.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(PredictiveBenchError):
        prepare("probsem", path)
    df = prepare("probsem", path, on_error="skip")
    assert set(df["suite"]) == {"A"}
    err = capsys.readouterr().err
    assert "skipped 2 suite(s)" in err and "lamp_C.json" in err
