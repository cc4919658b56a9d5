"""probsem prompt files and test suites -> the ``probsem`` task table.

A probsem benchmark is a prompt file ``<name>.txt`` (general context) and test suites
``<name>_<suite>.json`` beside it, each ``{"pretext", "context": [{"text", "expected"}...],
"posttext", "queries"}``. Every context is scored against every query; one table row holds
one context with its queries.

The suites published with the CogSci 2023 paper (the ``tug-of-war`` ones) use the original's
older schema, ``{"premise", "context": [{"text", "expected"}...], "query", "programs"}``,
read here as well: the programs are the queries, and a context's text joins ``premise``,
its ``text`` and ``query`` with newlines, leaving out every one of them that is exactly
``";;"`` (the paper-era original, commit 5d0c92c, drops parts equal to ``";;"``, where the
current one drops empty parts). A suite is read in the schema whose keys it has.

Text assembly follows the original exactly: a context's ``text`` joins the non-empty parts of
``[pretext, context text, posttext]`` with a newline (paper format: the parts of
``[premise, context text, query]`` that are not ``";;"``), and the text scored for a query is
``prompt + "\\n" + text + "\\n" + query`` (the prompt file keeps its trailing newline). The
table's ``input`` is that text without the query, so ``input + query`` is the scored text.
"""
from __future__ import annotations

import argparse
import glob
import os
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import pandas as pd

from .errors import ON_ERROR, PredictiveBenchError, report_skipped, skip_broken
from .readers import parse_json, read_text
from .registry import Preparer, register

COLUMNS = ["id", "input", "target", "prompt", "suite", "context_index", "text", "queries",
           "expected"]
SUITE_KEYS = ("pretext", "context", "posttext", "queries")
PAPER_SUITE_KEYS = ("premise", "context", "query", "programs")


def prompt_path(source: str) -> str:
    """The prompt file: ``source`` itself, or ``source + ".txt"`` as the original's ``--prompt``."""
    if os.path.isfile(source):
        return source
    if not source.endswith(".txt") and os.path.isfile(source + ".txt"):
        return source + ".txt"
    raise PredictiveBenchError("prompt file does not exist", file=source, kind="missing_file")


def prompt_stem(path: str) -> str:
    name = os.path.basename(path)
    return name[:-len(".txt")] if name.endswith(".txt") else os.path.splitext(name)[0]


def find_suites(prompt_file: str, suites: Optional[Sequence[str]] = None) -> List[Tuple[str, str]]:
    """``(suite_name, path)`` for the named suites, or every ``<stem>_*.json`` beside the prompt."""
    folder = os.path.dirname(os.path.abspath(prompt_file))
    stem = prompt_stem(prompt_file)
    if suites:
        found = []
        for suite in suites:
            if not isinstance(suite, str) or suite == "" or os.sep in suite or "/" in suite:
                raise PredictiveBenchError(f"invalid suite name {suite!r}", file=prompt_file,
                                           field="suite", kind="argument")
            path = os.path.join(folder, f"{stem}_{suite}.json")
            if not os.path.isfile(path):
                raise PredictiveBenchError(
                    f"test suite '{suite}' not found (expected {stem}_{suite}.json beside the "
                    "prompt)", file=path, kind="missing_file")
            found.append((suite, path))
        if len(set(name for name, _ in found)) != len(found):
            raise PredictiveBenchError("a suite is named twice", file=prompt_file, field="suite",
                                       kind="argument")
        return found
    pattern = os.path.join(glob.escape(folder), glob.escape(stem) + "_*.json")
    paths = sorted(glob.glob(pattern))
    found = [(os.path.basename(p)[len(stem) + 1:-len(".json")], p) for p in paths]
    found = [(name, path) for name, path in found if name != ""]
    if not found:
        raise PredictiveBenchError(
            f"no test suites found: expected files named {stem}_<suite>.json beside the prompt",
            file=prompt_file, kind="missing_file")
    return found


def read_suite(path: str) -> Dict[str, Any]:
    data = parse_json(read_text(path), path)
    if not isinstance(data, dict):
        raise PredictiveBenchError(f"expected a JSON object, found {type(data).__name__}",
                                   file=path, kind="json")
    return data


def _field_error(message: str, path: str, field: str, row: Any = None) -> PredictiveBenchError:
    return PredictiveBenchError(message, file=path, row=row, field=field, kind="field")


def suite_format(suite: Dict[str, Any], path: str, name: str) -> str:
    """``"paper"`` for the CogSci 2023 schema (``premise``/``query``/``programs``), else
    ``"current"``; a suite with keys of both is refused."""
    paper = [key for key in ("premise", "query", "programs") if key in suite]
    current = [key for key in ("pretext", "posttext", "queries") if key in suite]
    if paper and current:
        raise _field_error(f"suite '{name}' mixes the two probsem formats: it has "
                           f"{', '.join(repr(k) for k in current)} and "
                           f"{', '.join(repr(k) for k in paper)}", path, paper[0])
    return "paper" if paper else "current"


def _require_keys(suite: Dict[str, Any], keys: Iterable[str], texts: Iterable[str], path: str,
                  name: str) -> None:
    """Every key present, and the text ones strings."""
    for key in keys:
        if key not in suite:
            raise _field_error(f"suite '{name}' has no '{key}'", path, key)
    for key in texts:
        if not isinstance(suite[key], str):
            raise _field_error(f"suite '{name}': '{key}' must be a string", path, key)


PAPER_BLANK = ";;"


def paper_text(premise: str, text: str, query: str) -> str:
    """The paper-era text before a program: the parts that are not exactly ``";;"``, joined
    with newlines (an empty part is kept, as the original keeps it)."""
    return "\n".join(part for part in (premise, text, query) if part != PAPER_BLANK)


def from_paper_suite(suite: Dict[str, Any], path: str, name: str) -> Dict[str, Any]:
    """A paper-format suite in the current schema: the same contexts, ``programs`` as the
    queries and each context's text built by :func:`paper_text`, so that the current
    schema's own assembly (no pretext or posttext) yields the original's scored text."""
    _require_keys(suite, PAPER_SUITE_KEYS, ("premise", "query"), path, name)
    programs = suite["programs"]
    if (not isinstance(programs, list) or not programs
            or not all(isinstance(p, str) for p in programs)):
        raise _field_error(f"suite '{name}': 'programs' must be a non-empty list of strings",
                           path, "programs")
    contexts = suite["context"]
    converted = []
    if isinstance(contexts, list):
        for context in contexts:
            if isinstance(context, dict) and isinstance(context.get("text"), str):
                context = dict(context, text=paper_text(suite["premise"], context["text"],
                                                        suite["query"]))
            converted.append(context)
    else:
        converted = contexts
    return {"pretext": "", "context": converted, "posttext": "", "queries": suite["programs"]}


def validate_suite(suite: Dict[str, Any], path: str, name: str) -> None:
    """Check a suite's shape; every problem names the suite, the field and the context or query.

    The original asserts most of these and silently breaks on two: a query with a newline
    (the text/query split moves a line) and a repeated query (an assertion with no message).
    """
    _require_keys(suite, SUITE_KEYS, ("pretext", "posttext"), path, name)
    queries = suite["queries"]
    if not isinstance(queries, list) or not queries:
        raise _field_error(f"suite '{name}': 'queries' must be a non-empty list of strings",
                           path, "queries")
    seen: Dict[str, int] = {}
    for i, query in enumerate(queries):
        if not isinstance(query, str):
            raise _field_error(f"suite '{name}', query {i}: must be a string, found "
                               f"{type(query).__name__}", path, "queries", row=i)
        if query == "":
            raise _field_error(f"suite '{name}', query {i}: is empty; an empty query would "
                               "score the last line of the text instead", path, "queries", row=i)
        if "\n" in query:
            raise _field_error(f"suite '{name}', query {i} {query!r}: must be a single line "
                               "(the text before a query's last line would be scored as "
                               "context)", path, "queries", row=i)
        if query in seen:
            raise _field_error(f"suite '{name}', query {i} {query!r}: repeats query "
                               f"{seen[query]}; queries must be unique within a suite", path,
                               "queries", row=i)
        seen[query] = i
    contexts = suite["context"]
    if not isinstance(contexts, list) or not contexts:
        raise _field_error(f"suite '{name}': 'context' must be a non-empty list", path, "context")
    for i, context in enumerate(contexts):
        if not isinstance(context, dict):
            raise _field_error(f"suite '{name}', context {i}: expected an object, found "
                               f"{type(context).__name__}", path, "context", row=i)
        for key in ("text", "expected"):
            if key not in context:
                raise _field_error(f"suite '{name}', context {i}: missing '{key}'", path,
                                   f"context.{key}", row=i)
        if not isinstance(context["text"], str):
            raise _field_error(f"suite '{name}', context {i}: 'text' must be a string", path,
                               "context.text", row=i)
        expected = context["expected"]
        if isinstance(expected, bool) or not isinstance(expected, int):
            raise _field_error(f"suite '{name}', context {i}: 'expected' must be an integer, "
                               f"found {expected!r}", path, "context.expected", row=i)
        if expected < -1 or expected >= len(queries):
            raise _field_error(f"suite '{name}', context {i}: 'expected' is {expected}, but it "
                               f"must be -1 (no ground truth) or a query index 0 to "
                               f"{len(queries) - 1}", path, "context.expected", row=i)


def context_text(pretext: str, text: str, posttext: str) -> str:
    """The non-empty parts of ``[pretext, text, posttext]`` joined with newlines."""
    return "\n".join(part for part in (pretext, text, posttext) if part != "")


def scored_prefix(prompt: str, text: str) -> str:
    """Everything before a query in the scored text: ``prompt + "\\n" + text + "\\n"``."""
    return prompt + "\n" + text + "\n"


def flatten_suite(prompt: str, prompt_name: str, suite: Dict[str, Any], name: str,
                  path: str) -> List[Dict[str, Any]]:
    if suite_format(suite, path, name) == "paper":
        suite = from_paper_suite(suite, path, name)
    validate_suite(suite, path, name)
    queries = list(suite["queries"])
    rows = []
    for index, context in enumerate(suite["context"]):
        text = context_text(suite["pretext"], context["text"], suite["posttext"])
        expected = context["expected"]
        rows.append({
            "id": f"{name}-{index}",
            "input": scored_prefix(prompt, text),
            "target": None if expected == -1 else queries[expected],
            "prompt": prompt_name,
            "suite": name,
            "context_index": index,
            "text": text,
            "queries": queries,
            "expected": expected,
        })
    return rows


def flatten_probsem(prompt: str, prompt_name: str,
                    suites: Sequence[Tuple[str, Dict[str, Any], str]]) -> pd.DataFrame:
    rows: List[Dict[str, Any]] = []
    for name, suite, path in suites:
        rows.extend(flatten_suite(prompt, prompt_name, suite, name, path))
    return probsem_table(rows)


def probsem_table(rows: List[Dict[str, Any]]) -> pd.DataFrame:
    if not rows:
        return pd.DataFrame({column: [] for column in COLUMNS})
    return pd.DataFrame(rows, columns=COLUMNS).astype(
        {"context_index": "int64", "expected": "int64"}, copy=False)


def prepare_probsem(source: str, suites: Optional[Sequence[str]] = None,
                    on_error: str = "error") -> pd.DataFrame:
    """A prompt file and its test suites (``<prompt>_<suite>.json`` beside it) as a task table.

    ``suites`` names the suites to read (``["A", "B"]`` reads ``<prompt>_A.json`` and
    ``<prompt>_B.json``); by default every matching file is read, in name order.
    ``on_error="skip"`` leaves out a suite file that can't be read or is malformed, and
    reports it on stderr.
    """
    if isinstance(suites, str):
        suites = [suites]
    path = prompt_path(source)
    prompt = read_text(path)
    name = prompt_stem(path)
    skipped: List[PredictiveBenchError] = []

    def load(suite: str, suite_path: str) -> List[Dict[str, Any]]:
        return flatten_suite(prompt, name, read_suite(suite_path), suite, suite_path)

    per_suite = skip_broken(find_suites(path, suites), load, on_error, skipped)
    report_skipped(skipped, path, what="suite")
    return probsem_table([row for rows in per_suite for row in rows])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--suite", dest="suites", action="append", default=None,
                        metavar="NAME",
                        help="a test suite to read, <prompt>_NAME.json beside the prompt "
                             "(repeat for several; default: every <prompt>_*.json)")
    parser.add_argument("--on-error", dest="on_error", choices=ON_ERROR, default="error",
                        help="stop at a malformed suite, or skip it and list it on stderr")


PREPARERS = register(
    Preparer("probsem", "probsem", prepare_probsem, add_arguments=add_arguments,
             help="a probsem prompt .txt with its <prompt>_<suite>.json test suites")
)
