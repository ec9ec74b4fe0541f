"""The local model judge: a tiny ONNX cross-encoder built here, loaded through ``--judge local:DIR``.

The model is an embedding lookup, a masked mean pool and a linear layer giving three logits. Ordinary
words lean to entailment; the word "sealed" pushes to neutral and "forbidden" to contradiction, so the
model's answer differs from the lexical heuristic in ways the tests can see. Rules still run after it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

onnx = pytest.importorskip("onnx", reason="the local judge test builds its model with onnx (graphcite[dev])")
pytest.importorskip("onnxruntime", reason="the local judge needs onnxruntime (pip install 'graphcite[local-judge]')")
pytest.importorskip("tokenizers", reason="the local judge needs tokenizers (pip install 'graphcite[local-judge]')")

import numpy as np  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from graphcite.cli import app  # noqa: E402
from graphcite.errors import ConfigError  # noqa: E402
from graphcite.lru import LruCache  # noqa: E402
from graphcite.store import Store  # noqa: E402
from graphcite.verify import check_answer  # noqa: E402
from graphcite.verify.config import VerifierConfig, split_judge  # noqa: E402
from graphcite.verify.judge_local import _MODELS, MODELS_KEPT, load_local_model, relation_for_label  # noqa: E402
from graphcite.verify.judges import judge, judge_many, prepare_judge  # noqa: E402

WORDS = ("the", "courier", "does", "not", "deliver", "parcels", "on", "sundays", "archive", "is", "sealed",
         "in", "winter", "forbidden", "vault", "opens", "at", "night", "visitors", "may", "enter", ".", ",")
NLI_LABELS = {"0": "ENTAILMENT", "1": "Neutral", "2": "contradiction"}
FEVER_LABELS = {"0": "SUPPORTS", "1": "NOT ENOUGH INFO", "2": "REFUTES"}


def build_model(directory: Path, id2label: dict[str, str]) -> Path:
    """Write model.onnx, tokenizer.json and config.json for a three-way pair classifier."""
    from onnx import TensorProto, helper, numpy_helper
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    directory.mkdir(parents=True, exist_ok=True)
    vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3}
    for word in WORDS:
        vocab.setdefault(word, len(vocab))
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
    tokenizer.save(str(directory / "tokenizer.json"))

    table = np.zeros((len(vocab), 3), dtype=np.float32)
    table[1:, 0] = 1.0  # every word (and an unknown one) leans to the first label
    table[[vocab["[PAD]"], vocab["[CLS]"], vocab["[SEP]"]]] = 0.0
    table[vocab["sealed"]] = (0.0, 40.0, 0.0)
    table[vocab["forbidden"]] = (0.0, 0.0, 40.0)
    segment = np.zeros((2, 3), dtype=np.float32)
    weight, bias = np.eye(3, dtype=np.float32), np.zeros(3, dtype=np.float32)
    nodes = [
        helper.make_node("Gather", ["table", "input_ids"], ["words"]),
        helper.make_node("Gather", ["segment", "token_type_ids"], ["segments"]),
        helper.make_node("Add", ["words", "segments"], ["embedded"]),
        helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["mask", "axis2"], ["mask3"]),
        helper.make_node("Mul", ["embedded", "mask3"], ["masked"]),
        helper.make_node("ReduceSum", ["masked", "axis1"], ["summed"], keepdims=0),
        helper.make_node("ReduceSum", ["mask3", "axis1"], ["count"], keepdims=0),
        helper.make_node("Div", ["summed", "count"], ["pooled"]),
        helper.make_node("MatMul", ["pooled", "weight"], ["projected"]),
        helper.make_node("Add", ["projected", "bias"], ["logits"]),
    ]
    inputs = [helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])
              for name in ("input_ids", "attention_mask", "token_type_ids")]
    graph = helper.make_graph(
        nodes, "tiny-nli", inputs, [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 3])],
        initializer=[numpy_helper.from_array(table, "table"), numpy_helper.from_array(segment, "segment"),
                     numpy_helper.from_array(weight, "weight"), numpy_helper.from_array(bias, "bias"),
                     numpy_helper.from_array(np.array([1], dtype=np.int64), "axis1"),
                     numpy_helper.from_array(np.array([2], dtype=np.int64), "axis2")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(directory / "model.onnx"))
    (directory / "config.json").write_text(json.dumps({"architectures": ["TinyNLI"], "id2label": id2label}))
    return directory


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_model(tmp_path_factory.mktemp("models") / "tiny-nli", NLI_LABELS)


@pytest.fixture(scope="module")
def fever_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_model(tmp_path_factory.mktemp("models") / "tiny-fever", FEVER_LABELS)


def _local(directory: Path, **extra: object) -> VerifierConfig:
    return VerifierConfig(judge=f"local:{directory}", extra=dict(extra))


def test_split_judge_reads_the_local_directory() -> None:
    assert split_judge("local:models/nli") == ("local", "models/nli")
    assert split_judge("LOCAL: /m ") == ("local", "/m")
    assert split_judge("local:") == ("local", None)
    assert split_judge("http") == ("http", None)
    assert VerifierConfig(judge="local:~/m").judge_dir == Path.home() / "m"
    assert VerifierConfig().judge_dir is None and VerifierConfig().judge_kind == "heuristic"


@pytest.mark.parametrize(("label", "relation"), [
    ("ENTAILMENT", "supports"), ("entails", "supports"), ("SUPPORTS", "supports"),
    ("Contradiction", "contradicts"), ("REFUTES", "contradicts"), ("neutral", "insufficient"),
    ("NOT ENOUGH INFO", "insufficient"), ("not_entailment", "insufficient"), ("LABEL_0", None)])
def test_labels_map_to_relations(label: str, relation: str | None) -> None:
    assert relation_for_label(label) == relation


def test_the_model_decides_where_the_heuristic_would_not(model_dir: Path) -> None:
    config = _local(model_dir)
    # few shared words: the heuristic says insufficient, the model (ordinary words) says entailment
    claim, evidence = "Visitors may enter the vault.", "The courier opens at night."
    assert judge(claim, evidence, VerifierConfig()).label == "insufficient"
    verdict = judge(claim, evidence, config)
    assert verdict.label == "supports" and verdict.judge == "local"
    assert verdict.model is not None and verdict.model.startswith("tiny-nli@")
    assert "ENTAILMENT" in verdict.rationale
    # verbatim, so the heuristic supports; the model's neutral word makes it insufficient
    same = "The archive is sealed in winter."
    assert judge(same, same, VerifierConfig()).label == "supports"
    assert judge(same, same, config).label == "insufficient"
    assert judge("The vault is forbidden.", "The vault opens.", config).label == "contradicts"


def test_fever_style_labels_are_read(fever_dir: Path) -> None:
    config = _local(fever_dir)
    assert judge("The vault opens at night.", "The vault opens at night.", config).label == "supports"
    assert judge("The vault is forbidden.", "The vault opens.", config).label == "contradicts"
    assert "REFUTES" in judge("The vault is forbidden.", "The vault opens.", config).rationale


def test_batches_answer_like_single_pairs_in_input_order(model_dir: Path) -> None:
    pairs = [("The vault opens at night.", "The vault opens."),
             ("The archive is sealed in winter.", "The archive is sealed in winter, " + "the vault opens " * 10),
             ("The vault is forbidden.", "Visitors may enter."),
             ("The courier does not deliver parcels on Sundays.", "The courier delivers parcels."),
             ("The vault opens at night.", "The vault opens."),  # a repeated pair
             ("x", "y"), ("Sealed.", "Sealed.")]
    batched = judge_many(pairs, _local(model_dir, judge_batch_size=2))
    fresh = load_local_model(model_dir, batch_size=1)
    single = [fresh.predict([pair])[0] for pair in pairs]
    assert [j.label for j in batched] == [p.relation for p in single]
    assert [j.label for j in batched] == ["supports", "insufficient", "contradicts", "supports", "supports",
                                          "supports", "insufficient"]
    # the batched answers (kept by the batch-2 model) match one-by-one runs, padding notwithstanding
    kept = load_local_model(model_dir, batch_size=2).predict(pairs)
    assert [p.probability for p in kept] == pytest.approx([p.probability for p in single], abs=1e-6)
    assert len({p.probability for p in kept}) >= 4
    assert judge_many([], _local(model_dir)) == []
    # the other judges answer through the same function
    assert [j.label for j in judge_many(pairs[:1], VerifierConfig())] == ["supports"]


_SENTENCES = st.lists(st.sampled_from((*WORDS, "unknown", "Sealed")), min_size=0, max_size=40).map(" ".join)


@settings(max_examples=30, deadline=None)
@given(pairs=st.lists(st.tuples(_SENTENCES, _SENTENCES), min_size=1, max_size=12),
       batch_size=st.integers(min_value=1, max_value=5))
def test_any_batching_gives_the_one_by_one_answers(model_dir: Path, pairs: list[tuple[str, str]],
                                                   batch_size: int) -> None:
    batched = load_local_model(model_dir, batch_size=batch_size)
    batched.cache.clear()
    alone = load_local_model(model_dir, batch_size=1)
    got = batched.predict(pairs)
    for pair, prediction in zip(pairs, got, strict=True):
        alone.cache.clear()
        expected = alone.predict([pair])[0]
        assert prediction.relation == expected.relation
        assert prediction.probability == pytest.approx(expected.probability, abs=1e-6)


def test_a_bad_model_directory_is_one_clear_error(tmp_path: Path, model_dir: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        prepare_judge(_local(tmp_path / "nowhere"))
    partial = tmp_path / "partial"
    partial.mkdir()
    (partial / "config.json").write_text(json.dumps({"id2label": NLI_LABELS}))
    with pytest.raises(ConfigError, match=r"lacks model\.onnx, tokenizer\.json"):
        prepare_judge(_local(partial))
    (partial / "model.safetensors").write_bytes(b"\0")
    with pytest.raises(ConfigError, match=r"transformers checkpoint but no model\.onnx"):
        prepare_judge(_local(partial))
    generic = build_model(tmp_path / "generic", {"0": "LABEL_0", "1": "LABEL_1", "2": "LABEL_2"})
    with pytest.raises(ConfigError, match="'LABEL_0' has no meaning"):
        prepare_judge(_local(generic))
    broken = build_model(tmp_path / "broken", NLI_LABELS)
    (broken / "model.onnx").write_bytes(b"not a model")
    with pytest.raises(ConfigError, match=r"model\.onnx cannot be loaded"):
        prepare_judge(_local(broken))
    with pytest.raises(ConfigError, match="needs a model directory"):
        prepare_judge(VerifierConfig(judge="local:"))
    with pytest.raises(ConfigError, match="judge_batch_size must be an integer"):
        prepare_judge(_local(model_dir, judge_batch_size="many"))
    with pytest.raises(ConfigError, match="unknown judge"):
        judge("a", "b", VerifierConfig(judge="oracle"))
    with pytest.raises(ConfigError) as caught:
        prepare_judge(_local(tmp_path / "nowhere"))
    assert caught.value.code == "E401" and isinstance(caught.value, ValueError)


DOC = ("# Services\n\nThe courier does not deliver parcels on Sundays.\n\n"
       "The archive is sealed in winter.\n\nThe vault opens at night.\n")
CLAIMS = [("The vault opens at night.", "The vault opens at night."),
          ("The archive is sealed in winter.", "The archive is sealed in winter."),
          ("The courier delivers parcels on Sundays.", "The courier does not deliver parcels on Sundays.")]


def _answer(path: Path) -> Path:
    path.write_text(json.dumps({"answer_id": "local-judge", "claims": [
        {"text": text, "citations": [{"source": "services.md", "quote": quote}]} for text, quote in CLAIMS]}))
    return path


@pytest.fixture
def service_db(tmp_path: Path) -> Path:
    from graphcite.ingest import ingest

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "services.md").write_text(DOC, encoding="utf-8")
    db = tmp_path / "s.duckdb"
    with Store(db) as store:
        ingest(store, [docs])
    return db


def _findings(claim: dict) -> dict[str, dict]:
    return {f["code"]: f for f in claim["citations"][0]["findings"]}


def test_check_answer_with_the_local_judge_rules_still_veto(service_db: Path, model_dir: Path,
                                                            tmp_path: Path) -> None:
    answer = _answer(tmp_path / "answer.json")
    with Store(service_db) as store:
        heuristic = check_answer(store, answer, record=False)
        report = check_answer(store, answer, config=_local(model_dir), record=False)
    assert [c["status"] for c in heuristic["claims"]][:2] == ["supported", "supported"]
    opens, sealed, courier = report["claims"]
    assert opens["status"] == "supported"
    assert "model tiny-nli@" in _findings(opens)["GC201"]["detail"]
    assert sealed["status"] == "insufficient"  # the model, not the word overlap, answered
    assert _findings(sealed)["GC201"]["outcome"] == "fail"
    # the model says entailment (every word ordinary), the negation rule still vetoes
    assert _findings(courier)["GC201"]["outcome"] == "pass"
    assert _findings(courier)["GC401"]["outcome"] == "fail"
    assert courier["status"] == "contradicted" and not courier["supported"]
    assert report["verifier"]["judge"] == f"local:{model_dir}"
    assert report["verifier"]["config_hash"] != heuristic["verifier"]["config_hash"]


def test_cli_check_with_local_judge(service_db: Path, model_dir: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    answer = str(_answer(tmp_path / "answer.json"))
    result = runner.invoke(app, ["check", answer, "--db", str(service_db), "--judge", f"local:{model_dir}",
                                 "--json"])
    assert result.exit_code == 0, result.output
    statuses = [c["status"] for c in json.loads(result.output)["claims"]]
    assert statuses == ["supported", "insufficient", "contradicted"]
    missing = runner.invoke(app, ["check", answer, "--db", str(service_db), "--judge",
                                  f"local:{tmp_path / 'no-model'}"])
    assert missing.exit_code == 2
    assert "does not exist" in missing.output and "Traceback" not in missing.output
    assert len(missing.output.strip().splitlines()) == 1


def test_answers_and_models_are_kept_within_bounds(tmp_path: Path) -> None:
    directory = build_model(tmp_path / "bounded", NLI_LABELS)
    model = load_local_model(directory)
    model.cache = LruCache(3)
    pairs = [(f"the courier {w}", "the archive is sealed") for w in ("opens", "may", "enter", "deliver", "vault")]
    first = model.predict(pairs)
    assert len(first) == 5 and len(model.cache) == 3  # every answer returned, only the newest three kept
    assert model.predict(pairs[:1]) == first[:1]  # an evicted pair is answered again, alike
    assert load_local_model(directory) is model  # the same file and settings: the loaded model
    for step in range(1, MODELS_KEPT + 2):
        os.utime(directory / "model.onnx", ns=(step * 10**9, step * 10**9))  # a re-exported model
        load_local_model(directory)
    assert len(_MODELS) <= MODELS_KEPT
