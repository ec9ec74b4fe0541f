"""The demo: ingest the bundled corpus into an embedded store, check a clean and a trap-laden answer,
print both reports and the metrics, evaluate the labelled set, and write the HTML review page.

The demo verifies with ``examples/verifier.yaml``: the general rules plus the corpus's own domain
lexicon (``examples/domain.yaml``), as a team would configure graphcite for its own archive."""

from __future__ import annotations

import contextlib
from importlib.resources import as_file, files
from pathlib import Path
from typing import Any

from graphcite.store import open_store

__all__ = ["example_path", "run_demo"]


def example_path(*parts: str) -> Any:
    """A path inside the bundled examples (works from a source tree and an installed wheel)."""
    return files("graphcite.examples").joinpath(*parts)


def run_demo(*, db: str, out_dir: Path, console: Any) -> dict[str, Any]:
    """Run the whole demo; returns the two reports' metrics (the CLI prints as it goes)."""
    from graphcite.cli.render import render_report
    from graphcite.ingest import ingest, list_sources
    from graphcite.verify import check_answer
    from graphcite.verify.config import load_config

    results: dict[str, Any] = {}
    config_name = "the demo's configuration (examples/verifier.yaml: the general rules and the corpus's domain lexicon)"
    with contextlib.ExitStack() as stack:
        corpus = stack.enter_context(as_file(example_path("corpus")))
        store = stack.enter_context(open_store(db))
        config = load_config(stack.enter_context(as_file(example_path("verifier.yaml"))))
        report = ingest(store, [corpus])
        console.print(f"ingested {len(report.added)} new, {len(report.updated)} changed, "
                      f"{len(report.unchanged)} unchanged sources into {db}: {report.units} units, "
                      f"{report.values} typed values, {report.links} lineage links", markup=False)
        sources = list_sources(store)
        console.print(f"{len(sources)} sources in the store; restricted: "
                      + ", ".join(s["key"] for s in sources if s["visibility"] == "restricted"), markup=False)
        for name in ("clean", "traps"):
            answer = stack.enter_context(as_file(example_path("answers", f"{name}.json")))
            console.rule(f"{name} answer (audience: public)")
            checked = check_answer(store, Path(answer), audience="public", config=config)
            render_report(checked, console, config_name=config_name)
            results[name] = checked["metrics"]
        from graphcite.cli.render import render_eval
        from graphcite.evaluate import evaluate_set

        for name, title, about in (("set", "tuning set", "the rules were tuned on it"),
                                   ("heldout", "held-out set", "written without seeing the rules")):
            set_path = stack.enter_context(as_file(example_path("labelled", f"{name}.jsonl")))
            console.rule(f"labelled {title}")  # a rule's title is cut to the width: the sentence goes below
            console.print(f"The labelled {title} ({about}): {config_name} against the lexical baseline.",
                          markup=False)
            evaluation = evaluate_set(store, Path(set_path), config=config, baseline="lexical")
            render_eval(evaluation, console, categories=name == "set")
            results[f"eval_{name}"] = evaluation["summary"]
        with contextlib.suppress(ImportError):
            from graphcite.export import export

            out_dir.mkdir(parents=True, exist_ok=True)
            page = out_dir / "review.html"
            export(store, "html", page, all=True, audience="public")
            console.print(f"\nreview page written to {page}", markup=False)
    return results
