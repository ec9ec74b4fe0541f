"""The local model judge: an NLI or claim-verification cross-encoder read from a directory, run on CPU.

``--judge local:DIR`` names a directory holding ``model.onnx`` (a sequence-pair classifier),
``tokenizer.json`` (a Hugging Face ``tokenizers`` file) and ``config.json`` whose ``id2label`` names
each output (entailment / neutral / contradiction, SUPPORTS / NOT_ENOUGH_INFO / REFUTES, ...). The model
reads (evidence, claim) pairs in batches and its top label answers the support question; the rules
still run afterwards and still veto. Nothing is fetched: only files in DIR are read, and the Hugging
Face libraries are told to stay offline. onnxruntime, tokenizers and numpy come with the optional
extra ``graphcite[local-judge]`` and are imported only when this judge is used.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphcite.errors import ConfigError
from graphcite.lru import LruCache

__all__ = ["REQUIRED_FILES", "LocalModel", "Prediction", "load_local_model", "relation_for_label"]

REQUIRED_FILES = ("model.onnx", "tokenizer.json", "config.json")
CHECKPOINT_FILES = ("model.safetensors", "pytorch_model.bin")
MODEL_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
PAIR_ORDERS = ("evidence-claim", "claim-evidence")
CACHE_SIZE = 8192
MODELS_KEPT = 8  # loaded models per process: a re-exported model.onnx (new mtime) replaces, not adds

# label names used by NLI and fact-verification models, normalised (lower case, "_" for other characters)
LABEL_RELATIONS: Mapping[str, str] = {
    **dict.fromkeys(("entailment", "entailed", "entails", "entail", "supports", "support", "supported"),
                    "supports"),
    **dict.fromkeys(("contradiction", "contradicts", "contradict", "contradicted", "refutes", "refute",
                     "refuted"), "contradicts"),
    **dict.fromkeys(("neutral", "not_enough_info", "not_enough_information", "nei", "insufficient",
                     "not_entailment", "non_entailment", "unverifiable"), "insufficient"),
}


def relation_for_label(label: str) -> str | None:
    """The graphcite relation a model's label stands for (``ENTAILMENT`` -> supports), or ``None``."""
    key = re.sub(r"[^a-z0-9]+", "_", label.strip().lower()).strip("_")
    return LABEL_RELATIONS.get(key)


@dataclass(frozen=True, slots=True)
class Prediction:
    """The model's answer for one pair: the relation, its raw label and probability, p(supports)."""

    relation: str
    label: str
    probability: float
    support_probability: float


@dataclass(slots=True)
class LocalModel:
    """A loaded cross-encoder with its tokenizer, label map and a bounded cache of answered pairs."""

    directory: Path
    session: Any
    tokenizer: Any
    labels: tuple[str, ...]
    relations: tuple[str, ...]
    input_types: dict[str, str]
    fingerprint: str
    batch_size: int
    pair_order: str
    pad_id: int
    cache: LruCache[tuple[str, str], Prediction] = field(default_factory=lambda: LruCache(CACHE_SIZE))
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def name(self) -> str:
        """The directory name and a content hash: what a verification record should cite."""
        return f"{self.directory.name}@{self.fingerprint}"

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[Prediction]:
        """Answer every (claim, evidence) pair; new pairs run in length-sorted batches.

        Answers are kept (up to ``CACHE_SIZE`` pairs), so a pair asked again costs a look-up; a lock
        keeps the cache whole when a server asks from several threads.
        """
        with self.lock:
            answers: dict[tuple[str, str], Prediction] = {}
            todo = []
            for pair in dict.fromkeys(pairs):
                kept = self.cache.get(pair)
                if isinstance(kept, Prediction):
                    answers[pair] = kept
                else:
                    todo.append(pair)
            for start in range(0, len(todo), 16 * self.batch_size):
                chunk = todo[start:start + 16 * self.batch_size]
                for pair, prediction in zip(chunk, self._run(chunk), strict=True):
                    answers[pair] = prediction
                    self.cache.put(pair, prediction)
            return [answers[pair] for pair in pairs]

    def _run(self, pairs: Sequence[tuple[str, str]]) -> list[Prediction]:
        import numpy as np

        ordered = [(e, c) if self.pair_order == "evidence-claim" else (c, e) for c, e in pairs]
        encodings = self.tokenizer.encode_batch(ordered)
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        results: list[Prediction | None] = [None] * len(encodings)
        for start in range(0, len(order), self.batch_size):
            batch = order[start:start + self.batch_size]
            width = max(1, *(len(encodings[i].ids) for i in batch))
            arrays = {name: np.zeros((len(batch), width), dtype=np.int32 if "int32" in kind else np.int64)
                      for name, kind in self.input_types.items()}
            if "input_ids" in arrays:
                arrays["input_ids"].fill(self.pad_id)
            for row, i in enumerate(batch):
                enc = encodings[i]
                n = len(enc.ids)
                arrays["input_ids"][row, :n] = enc.ids
                if "attention_mask" in arrays:
                    arrays["attention_mask"][row, :n] = enc.attention_mask
                if "token_type_ids" in arrays:
                    arrays["token_type_ids"][row, :n] = enc.type_ids
            logits = np.asarray(self.session.run(None, arrays)[0], dtype=np.float64)
            if logits.ndim != 2 or logits.shape[1] != len(self.labels):
                raise ConfigError(f"model.onnx returns scores of shape {list(logits.shape)} but config.json "
                                  f"names {len(self.labels)} labels", where=str(self.directory),
                                  fix="export a sequence-classification head whose labels config.json lists")
            shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
            probs = shifted / shifted.sum(axis=1, keepdims=True)
            supports = [k for k, r in enumerate(self.relations) if r == "supports"]
            for row, i in enumerate(batch):
                top = int(probs[row].argmax())
                results[i] = Prediction(self.relations[top], self.labels[top], round(float(probs[row, top]), 4),
                                        round(float(probs[row, supports].sum()), 4))
        return [r for r in results if r is not None]


_MODELS: LruCache[tuple[Any, ...], LocalModel] = LruCache(MODELS_KEPT)


def load_local_model(directory: str | Path, *, batch_size: int = 32, threads: int = 0,
                     max_length: int | None = None, pair_order: str = "evidence-claim") -> LocalModel:
    """Load (once per process) the cross-encoder in ``directory``; refuse anything missing in one line."""
    where = f"--judge local:{directory}"
    path = Path(directory).expanduser()
    if not path.exists():
        raise ConfigError(f"model directory {str(path)!r} does not exist", where=where,
                          fix="point local: at a directory holding model.onnx, tokenizer.json and config.json")
    if not path.is_dir():
        raise ConfigError(f"{str(path)!r} is not a directory", where=where,
                          fix="point local: at the directory that holds model.onnx, not at a file")
    missing = [name for name in REQUIRED_FILES if not (path / name).is_file()]
    if missing and "model.onnx" in missing and any((path / n).is_file() for n in CHECKPOINT_FILES):
        raise ConfigError("the directory holds a transformers checkpoint but no model.onnx", where=where,
                          fix="export it to ONNX first; the README section 'A local model judge' shows how")
    if missing:
        raise ConfigError(f"the model directory lacks {', '.join(missing)}", where=where,
                          fix="export the model with its tokenizer; the README section 'A local model judge' shows how")
    if pair_order not in PAIR_ORDERS:
        raise ConfigError(f"unknown pair order {pair_order!r}", where="judge_pair_order",
                          fix=f"use one of: {', '.join(PAIR_ORDERS)}")
    if batch_size < 1:
        raise ConfigError(f"batch size {batch_size} is below 1", where="judge_batch_size", fix="use e.g. 32")
    model_file = path / "model.onnx"
    key = (str(path.resolve()), model_file.stat().st_mtime_ns, batch_size, threads, max_length, pair_order)
    model = _MODELS.get(key)
    if not isinstance(model, LocalModel):
        model = _load(path, where, batch_size=batch_size, threads=threads, max_length=max_length,
                      pair_order=pair_order)
        _MODELS.put(key, model)
    return model


def _load(path: Path, where: str, *, batch_size: int, threads: int, max_length: int | None,
          pair_order: str) -> LocalModel:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import numpy  # noqa: F401
        import onnxruntime
        from tokenizers import Tokenizer
    except ImportError as exc:
        missing = exc.name or "a library"
        raise ConfigError(f"the local judge needs onnxruntime, tokenizers and numpy ({missing} is missing)",
                          where=where, fix="pip install 'graphcite[local-judge]'") from None
    labels, relations, settings = _read_labels(path, where)
    try:
        tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
    except Exception as exc:  # the Rust library raises a bare Exception for a malformed file
        raise ConfigError(f"tokenizer.json cannot be read ({str(exc).splitlines()[0][:160]})", where=where,
                          fix="save the tokenizer with a recent tokenizers/transformers release") from None
    length = max_length or _max_length(path, settings)
    tokenizer.no_padding()
    tokenizer.enable_truncation(length, strategy="longest_first")
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = max(0, threads)
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    try:
        session = onnxruntime.InferenceSession(str(path / "model.onnx"), sess_options=options,
                                               providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own untyped errors for a bad graph
        raise ConfigError(f"model.onnx cannot be loaded ({str(exc).splitlines()[0][:160]})", where=where,
                          fix="export the model again with a supported opset") from None
    input_types = {i.name: i.type for i in session.get_inputs()}
    unknown = sorted(set(input_types) - set(MODEL_INPUTS))
    if unknown or "input_ids" not in input_types:
        raise ConfigError(f"model.onnx expects inputs {sorted(input_types)}", where=where,
                          fix="export a text-pair classifier taking input_ids, attention_mask (token_type_ids)")
    pad = (tokenizer.padding or {}).get("pad_id")
    if pad is None:
        pad = next((i for t in ("[PAD]", "<pad>") if (i := tokenizer.token_to_id(t)) is not None), 0)
    return LocalModel(path, session, tokenizer, labels, relations, input_types, _fingerprint(path),
                      batch_size, pair_order, int(pad))


def _read_labels(path: Path, where: str) -> tuple[tuple[str, ...], tuple[str, ...], dict[str, Any]]:
    try:
        settings = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"config.json is not readable JSON ({exc})".splitlines()[0], where=where,
                          fix="keep the config.json saved with the model") from None
    id2label = settings.get("id2label") if isinstance(settings, dict) else None
    if not isinstance(id2label, dict) or not id2label:
        raise ConfigError("config.json has no id2label", where=where,
                          fix='add e.g. "id2label": {"0": "entailment", "1": "neutral", "2": "contradiction"}')
    try:
        by_index = {int(k): str(v) for k, v in id2label.items()}
    except (TypeError, ValueError):
        raise ConfigError("config.json id2label keys must be class indexes", where=where,
                          fix='use keys "0", "1", ...') from None
    if sorted(by_index) != list(range(len(by_index))):
        raise ConfigError(f"config.json id2label indexes {sorted(by_index)} are not 0..{len(by_index) - 1}",
                          where=where, fix="list one label per model output")
    labels = tuple(by_index[i] for i in range(len(by_index)))
    relations = tuple(relation_for_label(label) or "" for label in labels)
    unknown = [label for label, relation in zip(labels, relations, strict=True) if not relation]
    if unknown:
        raise ConfigError(f"config.json label {unknown[0]!r} has no meaning for graphcite", where=where,
                          fix="name labels entailment/neutral/contradiction or SUPPORTS/NOT_ENOUGH_INFO/REFUTES")
    if "supports" not in relations:
        raise ConfigError("no config.json label means support (entailment or SUPPORTS)", where=where,
                          fix="use a model trained for entailment or claim verification")
    return labels, relations, settings


def _max_length(path: Path, settings: dict[str, Any]) -> int:
    """512 tokens, or less when the tokenizer or the position table says so."""
    limits = [512]
    try:
        extra = json.loads((path / "tokenizer_config.json").read_text(encoding="utf-8"))
        if isinstance(extra.get("model_max_length"), int):
            limits.append(extra["model_max_length"])
    except (OSError, ValueError, AttributeError):
        pass
    if isinstance(settings.get("max_position_embeddings"), int):
        limits.append(settings["max_position_embeddings"])
    return max(8, min(limits))


def _fingerprint(path: Path) -> str:
    digest = hashlib.sha256()
    for name in REQUIRED_FILES:
        with (path / name).open("rb") as handle:
            while block := handle.read(1 << 20):
                digest.update(block)
    return digest.hexdigest()[:12]
