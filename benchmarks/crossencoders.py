"""What a user would pick instead: small cross-encoders of the shapes used to check a claim against its
evidence, timed in ONNX Runtime on the same claim/evidence pairs as graphcite, in one run.

Three graphs are built here with ``onnx.helper`` and random weights of the real shapes (nothing is
downloaded, so their verdicts mean nothing; only their cost is measured):

- ``minilm-l6-nli``: a MiniLM-L6 NLI cross-encoder (BERT encoder, 6 layers, hidden 384, 12 heads, FFN 1536);
- ``deberta-v3-large``: the shape of MiniCheck / FactCG checkers (24 layers, hidden 1024, 16 heads, FFN 4096),
  with DeBERTa's disentangled attention (content-to-position and position-to-content scores against a
  relative-position table, 512 rows);
- ``flan-t5-base``: the shape of HHEM (T5 encoder, 12 layers, d_model 768, 12 heads, gated-GELU FFN 2048,
  plus one decoder step through 12 layers with cross-attention).

Each ends in a two- or three-way classifier. Embedding tables are cut to 8,192 rows (a lookup costs the
same whatever the vocabulary size; the real tables would only take memory). Pairs are the bundled
labelled set's claims with the quotes they cite, tokenized by a WordPiece vocabulary trained here on the
bundled corpus (so sequence lengths are those of a subword tokenizer), ``[CLS] claim [SEP] evidence [SEP]``.
Every model runs with one intra-op thread (graphcite's check is one thread too), one pair per call, and
again in batches of 8 (padded). graphcite is timed on the same pairs as ``verify_answer`` of each item,
after a warm-up, with no memo between items; the ratio is model milliseconds per pair over graphcite's.

    python -m benchmarks.crossencoders [--pairs 48] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.common import ROOT, emit

EXAMPLES = ROOT / "graphcite" / "examples"
VOCAB_ROWS = 8192
OPSET = 20


@dataclass(frozen=True)
class Shape:
    """The published shape of a checker: what its cost depends on."""

    name: str
    layers: int
    hidden: int
    heads: int
    ffn: int
    labels: int
    gated: bool = False  # T5's gated-GELU feed-forward (two input projections)
    relative: bool = False  # DeBERTa's disentangled attention
    decoder_layers: int = 0  # T5: one decoder step through this many layers


SHAPES = (
    Shape("minilm-l6-nli", 6, 384, 12, 1536, 3),
    Shape("deberta-v3-large", 24, 1024, 16, 4096, 2, relative=True),
    Shape("flan-t5-base", 12, 768, 12, 2048, 2, gated=True, decoder_layers=12),
)


class _Graph:
    """A small builder over onnx.helper: named nodes and random float32 initializers."""

    def __init__(self, seed: int) -> None:
        self.nodes: list[Any] = []
        self.inits: list[Any] = []
        self.rng = np.random.default_rng(seed)
        self.count = 0

    def name(self, stem: str) -> str:
        self.count += 1
        return f"{stem}_{self.count}"

    def weight(self, *shape: int, value: float | None = None) -> str:
        from onnx import numpy_helper

        name = self.name("w")
        data = (np.full(shape, value, dtype=np.float32) if value is not None
                else (self.rng.standard_normal(shape, dtype=np.float32) * 0.02))
        self.inits.append(numpy_helper.from_array(data, name))
        return name

    def const(self, values: list[int]) -> str:
        from onnx import numpy_helper

        name = self.name("c")
        self.inits.append(numpy_helper.from_array(np.array(values, dtype=np.int64), name))
        return name

    def op(self, kind: str, *inputs: str, **attrs: Any) -> str:
        from onnx import helper

        out = self.name(kind.lower())
        self.nodes.append(helper.make_node(kind, list(inputs), [out], **attrs))
        return out

    def linear(self, x: str, n_in: int, n_out: int) -> str:
        return self.op("Add", self.op("MatMul", x, self.weight(n_in, n_out)), self.weight(n_out, value=0.0))

    def norm(self, x: str, hidden: int) -> str:
        return self.op("LayerNormalization", x, self.weight(hidden, value=1.0), self.weight(hidden, value=0.0), axis=-1)

    def heads(self, x: str, shape: Shape) -> str:
        """(batch, seq, hidden) -> (batch, heads, seq, head_dim)."""
        split = self.op("Reshape", x, self.const([0, -1, shape.heads, shape.hidden // shape.heads]))
        return self.op("Transpose", split, perm=[0, 2, 1, 3])

    def attention(self, x: str, memory: str, shape: Shape, rel: str | None = None) -> str:
        h = shape.hidden
        q, k, v = (self.heads(self.linear(src, h, h), shape) for src in (x, memory, memory))
        scale = self.weight(1, value=1.0 / float(np.sqrt(h // shape.heads)))
        scores = self.op("Mul", self.op("MatMul", q, self.op("Transpose", k, perm=[0, 1, 3, 2])), scale)
        if rel is not None:  # content-to-position and position-to-content, against the relative table
            pos_k = self.heads(self.linear(rel, h, h), shape)
            pos_q = self.heads(self.linear(rel, h, h), shape)
            c2p = self.op("MatMul", q, self.op("Transpose", pos_k, perm=[0, 1, 3, 2]))
            p2c = self.op("Transpose", self.op("MatMul", k, self.op("Transpose", pos_q, perm=[0, 1, 3, 2])),
                          perm=[0, 1, 3, 2])
            scores = self.op("Add", scores, self.op("Mul", self.op("Add", c2p, p2c), scale))
        context = self.op("MatMul", self.op("Softmax", scores, axis=-1), v)
        merged = self.op("Reshape", self.op("Transpose", context, perm=[0, 2, 1, 3]), self.const([0, -1, h]))
        return self.linear(merged, h, h)

    def feed_forward(self, x: str, shape: Shape) -> str:
        inner = self.op("Gelu", self.linear(x, shape.hidden, shape.ffn))
        if shape.gated:
            inner = self.op("Mul", inner, self.linear(x, shape.hidden, shape.ffn))
        return self.linear(inner, shape.ffn, shape.hidden)

    def block(self, x: str, shape: Shape, memory: str | None = None, rel: str | None = None) -> str:
        x = self.norm(self.op("Add", x, self.attention(x, x, shape, rel)), shape.hidden)
        if memory is not None:
            x = self.norm(self.op("Add", x, self.attention(x, memory, shape)), shape.hidden)
        return self.norm(self.op("Add", x, self.feed_forward(x, shape)), shape.hidden)


def build(shape: Shape, folder: Path) -> Path:
    """The ONNX file of one shape with random weights (external data beside it), written once."""
    import onnx
    from onnx import TensorProto, helper

    path = folder / f"{shape.name}.onnx"
    if path.exists():
        return path
    g = _Graph(seed=len(shape.name))
    ids = "input_ids"
    x = g.op("Gather", g.weight(VOCAB_ROWS, shape.hidden), ids)
    seq = g.op("Slice", g.op("Shape", ids), g.const([1]), g.const([2]))
    if not shape.gated:  # BERT and DeBERTa add learned absolute positions; T5 has relative biases only
        positions = g.op("Slice", g.weight(512, shape.hidden), g.const([0]), seq, g.const([0]))
        x = g.op("Add", x, positions)
    x = g.norm(x, shape.hidden)
    rel = None
    if shape.relative:
        table = g.op("Slice", g.weight(512, shape.hidden), g.const([0]), seq, g.const([0]))
        rel = g.op("Unsqueeze", table, g.const([0]))
    for _ in range(shape.layers):
        x = g.block(x, shape, rel=rel)
    if shape.decoder_layers:
        start = g.op("Gather", g.weight(VOCAB_ROWS, shape.hidden), g.const([0]))  # the decoder's start token
        y = g.op("Unsqueeze", start, g.const([0]))
        for _ in range(shape.decoder_layers):
            y = g.block(y, shape, memory=x)
        pooled = g.op("ReduceMean", y, g.const([1]), keepdims=0)
    else:
        first = g.op("Gather", x, g.const([0]), axis=1)
        pooled = g.op("Tanh", g.linear(g.op("Squeeze", first, g.const([1])), shape.hidden, shape.hidden))
    logits = g.op("Softmax", g.linear(pooled, shape.hidden, shape.labels), axis=-1)
    graph = helper.make_graph(
        g.nodes, shape.name, [helper.make_tensor_value_info(ids, TensorProto.INT64, ["batch", "seq"])],
        [helper.make_tensor_value_info(logits, TensorProto.FLOAT, ["batch", shape.labels])], g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 10
    onnx.save_model(model, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
                    location=f"{shape.name}.data")
    return path


def parameters(path: Path) -> int:
    import onnx

    model = onnx.load(str(path), load_external_data=False)
    return sum(int(np.prod(t.dims)) for t in model.graph.initializer)


def pairs(limit: int) -> list[tuple[str, str]]:
    """(claim, quote) of the bundled labelled set's citations that quote their evidence, in file order."""
    out = []
    for line in (EXAMPLES / "labelled" / "set.jsonl").read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        for cit in item["citations"]:
            if cit.get("quote"):
                out.append((item["claim"], cit["quote"]))
    return out[:limit]


def tokenizer() -> Any:
    """A WordPiece tokenizer trained on the bundled corpus (no vocabulary is downloaded)."""
    from tokenizers import BertWordPieceTokenizer

    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted((EXAMPLES / "corpus").rglob("*"))
             if p.is_file() and p.suffix in {".md", ".html", ".py", ".yaml"}]
    tok = BertWordPieceTokenizer(lowercase=True)
    tok.train_from_iterator(texts, vocab_size=4000, min_frequency=2, show_progress=False)
    return tok


def _ids(tok: Any, claim: str, evidence: str) -> np.ndarray:
    ids = tok.encode(claim, evidence).ids[:512]
    return np.array([[i % VOCAB_ROWS for i in ids]], dtype=np.int64)


def time_model(path: Path, inputs: list[np.ndarray], batch: int) -> float:
    """Milliseconds per pair: one call per pair (batch 1) or per ``batch`` pairs padded to the longest."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    feeds = inputs if batch == 1 else [
        np.stack([np.pad(a[0], (0, max(x.shape[1] for x in inputs[i:i + batch]) - a.shape[1]))
                  for a in inputs[i:i + batch]]) for i in range(0, len(inputs), batch)]
    session.run(None, {"input_ids": feeds[0]})  # warm-up
    start = time.process_time()
    for feed in feeds:
        session.run(None, {"input_ids": feed})
    return (time.process_time() - start) * 1000 / len(inputs)


def time_graphcite(items: list[tuple[str, str]]) -> tuple[float, int]:
    """graphcite's milliseconds per check (CPU) on the same pairs: each claim against its quoted citation."""
    from benchmarks.verify import clear_result_caches
    from graphcite.claims.formats import load_answer
    from graphcite.ingest import ingest
    from graphcite.store import Store
    from graphcite.verify import VerifierConfig
    from graphcite.verify.check import verify_answer

    sources = {}
    for line in (EXAMPLES / "labelled" / "set.jsonl").read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        for cit in item["citations"]:
            if cit.get("quote"):
                sources.setdefault((item["claim"], cit["quote"]), cit["source"])
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "corpus.duckdb") as store:
        ingest(store, [EXAMPLES / "corpus"])
        config = VerifierConfig()
        answers = [load_answer({"answer_id": f"p{i}", "claims": [
            {"text": claim, "citations": [{"source": sources[(claim, quote)], "quote": quote}]}]})
            for i, (claim, quote) in enumerate(items)]
        verify_answer(store, answers[0], config=config)  # resources loaded, then no memo of these pairs
        clear_result_caches()
        supported = 0
        start = time.process_time()
        for answer in answers:
            supported += verify_answer(store, answer, config=config)["claims"][0]["supported"]
        return (time.process_time() - start) * 1000 / len(answers), supported


def run(limit: int = 48) -> list[dict[str, Any]]:
    items = pairs(limit)
    ms_graphcite, supported = time_graphcite(items)
    tok = tokenizer()
    inputs = [_ids(tok, claim, quote) for claim, quote in items]
    lengths = [a.shape[1] for a in inputs]
    folder = ROOT / "benchmarks" / "data" / "crossencoders"
    folder.mkdir(parents=True, exist_ok=True)
    rows = [{"benchmark": "graphcite check (all rules)", "pairs": len(items), "ms/pair": round(ms_graphcite, 3),
             "note": f"{supported} supported"}]
    for shape in SHAPES:
        path = build(shape, folder)
        for batch in (1, 8):
            ms = time_model(path, inputs, batch)
            rows.append({"benchmark": f"{shape.name} (random weights), batch {batch}", "pairs": len(items),
                         "ms/pair": round(ms, 3), "params_M": round(parameters(path) / 1e6, 1),
                         "tokens_median": statistics.median(lengths),
                         "graphcite_cost_ratio": round(ms_graphcite / ms, 4)})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.crossencoders")
    parser.add_argument("--pairs", type=int, default=48, help="claim/evidence pairs of the bundled labelled set")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    emit(run(args.pairs), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
