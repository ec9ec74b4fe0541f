"""`graphcite eval` prints every table whole when piped (issue 25: never truncate data off a terminal)."""

from __future__ import annotations

import io

from rich.console import Console

from graphcite.cli.render import render_eval
from graphcite.evaluate import METRIC_MEANINGS

NAME = "config 0123456789abcdef (a configuration whose name is long enough to be cut)"


def _result() -> dict:
    metrics = dict.fromkeys(METRIC_MEANINGS, 0.5)
    return {"set": "heldout.jsonl", "items": 3, "runs": {NAME: {
        "metrics": metrics,
        "by_rule": [{"code": "GC201-lexical-support-with-a-long-symbol-name", "on_supported": 1, "on_unsupported": 2,
                     "rate_supported": 0.1, "rate_unsupported": 0.2, "lift": 2.0}],
        "by_category": {"a_category_whose_name_is_long_enough_to_be_cut_at_eighty_columns": {
            "items": 3, "false_support_rate": None, "support_recall": 0.5}}}}}


def test_every_table_of_an_evaluation_arrives_whole_in_a_pipe() -> None:
    out = io.StringIO()
    render_eval(_result(), Console(file=out, width=80))  # not a terminal: a file
    text = out.getvalue()
    assert "…" not in text
    for whole in (NAME, "GC201-lexical-support-with-a-long-symbol-name",
                  "a_category_whose_name_is_long_enough_to_be_cut_at_eighty_columns", *METRIC_MEANINGS.values()):
        assert whole in text, whole
    assert "every setting that can change a verdict" in " ".join(text.split())  # a hashed configuration says what its hash is


def test_the_library_prints_nothing_and_categories_can_be_left_out() -> None:
    import graphcite.evaluate

    assert not hasattr(graphcite.evaluate, "render_eval")  # the CLI formats; the library returns data
    out = io.StringIO()
    render_eval(_result(), Console(file=out, width=80), categories=False)
    assert "by category" not in out.getvalue() and "vetoes by rule" in out.getvalue()
