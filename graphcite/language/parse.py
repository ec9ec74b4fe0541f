"""The trained English pipeline: tags, morphology, dependency arcs and POS-aware lemmas.

The pipeline ships in ``data/pipeline`` (built by ``scripts/build_parser.py`` from Universal
Dependencies English EWT, CC BY-SA 4.0; its licence and test-set accuracy lie beside it). It is
loaded once per process, on first use, and only by the readers that need syntax (frames): word
lemmas and tokens still come from :mod:`graphcite.language.nlp`, which never loads it.

A parse is the same for every reading of the same text, so it can be prepared: :func:`prepare` hands
serialised parses (made by :func:`serialise`, kept by the store with :func:`pipeline_version`) to
:func:`parse`, which uses one instead of running the pipeline when its text is the one parsed;
:func:`fresh_parse` gives back what the pipeline parsed in this process, for the store to keep.

Two readings of the trained pipeline are corrected around it (:func:`_run`): before the parser, a name's
middle initial ("Jacqueline B. Wender", "George W. Bush") starts no sentence; after the lemmatizer, a
base or present-tense verb written as a WordNet verb is its own lemma ("need", not "nee"; "proceed",
not "procee"). Both are part of what :func:`pipeline_version` names, so a parse kept before them is
made again.
"""

from __future__ import annotations

import hashlib
import json
import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphcite.lru import MISSING, LruCache

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

__all__ = ["PIPELINE_VERSION", "READING_REVISION", "Layout", "fresh_parse", "layout", "memoised", "parse", "parser",
           "pipeline_accuracy", "pipeline_path", "pipeline_version", "prepare", "prepared_count", "serialise",
           "text_key"]


def pipeline_path() -> Path:
    """Where the shipped pipeline lies inside the package."""
    return Path(str(files("graphcite.language").joinpath("data/pipeline")))


@lru_cache(maxsize=1)
def pipeline_accuracy() -> dict[str, float | int | str]:
    """The accuracy and speed figures the build script measured on the treebank's test part."""
    path = pipeline_path() / "accuracy.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def _version() -> str:
    accuracy = pipeline_accuracy()
    return f"ewt-{accuracy.get('size', 'unknown')}-{accuracy.get('treebank_commit', 'unknown')[:8]}"


PIPELINE_VERSION = _version()


@lru_cache(maxsize=1)
def parser() -> Language:
    """The trained pipeline, loaded once (tok2vec, tagger, morphologiser, parser, rule lemmatizer) with the
    tokenizer saved beside it."""
    import spacy

    from graphcite.errors import make_error

    path = pipeline_path()
    if not (path / "config.cfg").exists():
        raise make_error("E402", model=str(path), where="graphcite/language/data/pipeline",
                         fix="rebuild it with scripts/build_parser.py --ewt PATH_TO_UD_English-EWT")
    if not (path / "tokenizer").is_file():
        return spacy.load(path)
    # the tokenizer the config names is built, then replaced by the one saved with the pipeline (its rules,
    # affixes and exceptions, every field): built empty instead, the load takes 40% less time
    nlp = spacy.load(path, config={"nlp": {"tokenizer": {"@tokenizers": _unfilled_tokenizer()}}})
    tokenizer = nlp.tokenizer
    if tokenizer.prefix_search is None or tokenizer.suffix_search is None or not tokenizer.rules:
        return spacy.load(path)  # a saved tokenizer without some field: the ordinary way
    return nlp


@cache
def _unfilled_tokenizer() -> str:
    """The registered name of a tokenizer with no rules (filled by the pipeline's own when it loads)."""
    from spacy.tokenizer import Tokenizer
    from spacy.util import registry

    name = "graphcite.unfilled_tokenizer.v1"

    def unfilled() -> Callable[[Language], Tokenizer]:
        return lambda nlp: Tokenizer(nlp.vocab)

    if name not in registry.tokenizers:
        registry.tokenizers.register(name, func=unfilled)
    return name


#: Of a pipeline file larger than this, :func:`pipeline_version` reads the first and last this many bytes.
_SAMPLED = 1 << 16


#: What :func:`_run` corrects in the pipeline's output; a new revision makes every kept parse stale.
READING_REVISION = "initials+vb-lemmas-1"


@cache
def pipeline_version() -> str:
    """What a kept parse must have been made by to be used: :data:`PIPELINE_VERSION`, the spaCy and thinc
    versions, :data:`READING_REVISION`, and a digest of every file of the shipped pipeline (its name, size and
    bytes; of a weights file, its first and last 64 KiB: retrained weights differ throughout). Worked out once,
    on first use."""
    import spacy
    import thinc

    digest = hashlib.blake2b(digest_size=8)
    root = pipeline_path()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        size = path.stat().st_size
        digest.update(f"{path.relative_to(root).as_posix()}\0{size}\0".encode())
        with path.open("rb") as handle:
            digest.update(handle.read(_SAMPLED))
            if size > 2 * _SAMPLED:
                handle.seek(size - _SAMPLED)
                digest.update(handle.read())
            elif size > _SAMPLED:
                digest.update(handle.read())
    return (f"{PIPELINE_VERSION}/spacy-{spacy.__version__}/thinc-{thinc.__version__}/{READING_REVISION}/"
            f"{digest.hexdigest()}")


def text_key(text: str) -> str:
    """The key a prepared parse of ``text`` is kept under (a digest of the exact text parsed)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


#: Serialised parses handed over by :func:`prepare`, by :func:`text_key`; each is used once, then memoised.
_PREPARED: dict[str, bytes] = {}
#: Keys of texts whose parse, when the pipeline makes it, :func:`fresh_parse` is to give back.
_WANTED: dict[str, None] = {}
#: Those parses, until :func:`fresh_parse` takes them.
_FRESH: dict[str, Doc] = {}
_HELD = 16_384


def _hold(kept: dict[str, Any], key: str, value: Any) -> None:
    if len(kept) >= _HELD:  # the oldest go first: a batch's readings are near in time
        for old in list(kept)[:_HELD // 4]:
            del kept[old]
    kept[key] = value


def prepare(parses: Mapping[str, bytes] | Iterable[tuple[str, bytes]], version: str, *,
            wanted: Iterable[str] = ()) -> int:
    """Hand serialised parses (``{text_key: bytes}``) to :func:`parse`; those of another pipeline version
    are refused (a stale parse is never used: the text is parsed again). ``wanted`` are the keys of texts
    whose parse the caller will ask :func:`fresh_parse` for, should the pipeline have to make it. Returns
    how many parses were taken."""
    for key in wanted:
        _hold(_WANTED, key, None)
    if version != pipeline_version():
        return 0
    taken = 0
    for key, data in (parses.items() if isinstance(parses, Mapping) else parses):
        _hold(_PREPARED, key, bytes(data))
        taken += 1
    return taken


def prepared_count() -> int:
    """How many handed-over parses :func:`parse` has not used yet."""
    return len(_PREPARED)


#: Token attributes a serialised parse keeps (with ``ORTH`` first and ``SPACY`` last, as :func:`_load` reads them).
_ATTRS = ("ORTH", "NORM", "TAG", "HEAD", "DEP", "ENT_IOB", "ENT_TYPE", "LEMMA", "MORPH", "POS", "SENT_START", "SPACY")
#: The columns of :data:`_ATTRS` that hold string hashes (their strings travel with the parse).
_STRING_COLUMNS = (0, 1, 2, 4, 6, 7, 8)
_MAGIC = b"GCP1"


def serialise(doc: Doc) -> bytes:
    """A parse as the bytes :func:`prepare` takes back: every token's attributes as one array and the strings
    they name (~0.7 KB a paragraph, compressed). Reading it back takes under a hundredth of parsing the text
    again (a spaCy DocBin takes a tenth: its msgpack reader looks up entry points on every call)."""
    import json
    import struct
    import zlib

    array = doc.to_array(list(_ATTRS)).astype("uint64", copy=False)
    hashes = sorted({int(h) for column in _STRING_COLUMNS for h in array[:, column] if h})
    strings = json.dumps([doc.vocab.strings[h] for h in hashes]).encode("ascii")
    header = struct.pack("<II", array.shape[0], array.shape[1])
    return _MAGIC + zlib.compress(header + array.tobytes() + strings, 6)


def _load(data: bytes) -> Doc | None:
    """A serialised parse read back, or None when its bytes are not one (the text is then parsed again)."""
    import json
    import struct
    import zlib

    import numpy
    from spacy.tokens import Doc

    if not data.startswith(_MAGIC):
        return None
    try:
        body = zlib.decompress(data[len(_MAGIC):])
        count, width = struct.unpack_from("<II", body)
        if width != len(_ATTRS):
            return None
        array = numpy.frombuffer(body, dtype="uint64", count=count * width, offset=8).reshape(count, width)
        vocab = parser().vocab
        for string in json.loads(body[8 + count * width * 8:]):
            vocab.strings.add(string)
        words = [vocab.strings[int(h)] for h in array[:, 0]]
        doc = Doc(vocab, words=words, spaces=[bool(x) for x in array[:, -1]])
        return doc.from_array(list(_ATTRS), array) if count else doc
    except (ValueError, KeyError, TypeError, IndexError, struct.error, zlib.error):
        return None


def fresh_parse(text: str) -> bytes | None:
    """The serialised parse of ``text`` if it was wanted (see :func:`prepare`) and :func:`parse` has made
    it since (by the pipeline, or from a parse handed over for another unit); given once."""
    key = text_key(text)
    _WANTED.pop(key, None)
    doc = _FRESH.pop(key, None)
    return serialise(doc) if doc is not None else None


def _parse(text: str) -> Doc:
    """The parse of one text (claims and evidence alike), memoised: a unit is met again and again.

    Readers pass :func:`layout`'s flat copy, so the same words in another layout parse the same. A
    parse handed over by :func:`prepare` for exactly this text is used instead of running the pipeline.
    """
    key = text_key(text)
    data = _PREPARED.pop(key, None)
    doc = _load(data) if data is not None else None
    if doc is None or doc.text != text:
        doc = _run(text)
    if key in _WANTED:
        _hold(_FRESH, key, doc)
    return doc


def _run(text: str) -> Doc:
    """The trained pipeline's parse of ``text``, with a middle initial kept inside its sentence and the
    lemma of a base or present-tense verb that is itself a verb lemma kept as written."""
    nlp = parser()
    doc = nlp.make_doc(text)
    _keep_initials(doc)
    doc = nlp(doc)
    _verbs_as_written(doc)
    return doc


def _is_initial(word: str) -> bool:
    return len(word) == 2 and word[1] == "." and "A" <= word[0] <= "Z"


def _keep_initials(doc: Doc) -> None:
    """Mark a capitalised word after a capitalised word and a single capital letter with a full stop
    ("Jacqueline B. Wender") as no sentence start: the parser reads the stop as a sentence's end else.
    A function word after the letter ("Plan B. Then we ...") starts its sentence as the parser sees fit."""
    function_words: frozenset[str] | None = None
    for i in range(2, len(doc)):
        token = doc[i]
        if _is_initial(doc[i - 1].text) and token.text[:1].isupper() and _capitalised(doc[i - 2].text):
            if function_words is None:
                from graphcite.language.lexicon_data import load_tables

                function_words = load_tables().function_words
            if token.lower_ not in function_words:
                token.is_sent_start = False


def _capitalised(word: str) -> bool:
    return word[:1].isupper() and word.isalpha()


def _verbs_as_written(doc: Doc) -> None:
    """Give a VB/VBP verb whose lowercase form is a WordNet verb that form as its lemma: the rule
    lemmatizer strips a suffix it does not have ("need" -> "nee", "proceed" -> "procee")."""
    for token in doc:
        if token.tag_ in _AS_WRITTEN_TAGS and token.pos_ in _VERB_POS:
            lower = token.lower_
            if token.lemma_ != lower and _is_verb_lemma(lower):
                token.lemma_ = lower


_AS_WRITTEN_TAGS = frozenset({"VB", "VBP"})
_VERB_POS = frozenset({"VERB", "AUX"})


@lru_cache(maxsize=8192)
def _is_verb_lemma(word: str) -> bool:
    """Whether WordNet lists ``word`` itself as a verb (not one of its inflected forms)."""
    from graphcite.language.lexicon_data import load_tables
    from graphcite.language.lexicon_forms import VERB

    tables = load_tables()
    found = tables.index.get(word)
    return found is not None and bool(tables.word_pos[found] & VERB)


#: parses by text, most recent last: a unit is met again and again
_PARSES: LruCache[str, Doc] = LruCache(8192)


def parse(text: str) -> Doc:
    """:func:`_parse` of ``text``, remembered (:data:`_PARSES`)."""
    doc = _PARSES.get(text)
    if doc is MISSING:
        doc = _parse(text)
        _PARSES.put(text, doc)
    return doc  # type: ignore[return-value]


def memoised(text: str) -> bool:
    """Whether :func:`parse` holds the parse of ``text`` in this process (asking it costs no parse): a
    check need not read a kept parse of it from the store."""
    return text in _PARSES


_RUN = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Layout:
    """A text with every run of white space read as one space, and where each of its characters was.

    The parser reads ``flat``, so a line break, a tab or a double space never changes a reading;
    ``where[i]`` is the offset in the original text of ``flat[i]`` (and ``where[len(flat)]`` its end),
    so every offset a reader gives back points into the text as stored.
    """

    flat: str
    where: tuple[int, ...]

    def original(self, start: int, end: int) -> tuple[int, int]:
        """Offsets in the original text of ``flat[start:end]``."""
        if end <= start:
            return self.where[start], self.where[start]
        return self.where[start], self.where[end - 1] + 1

    def flat_span(self, start: int, end: int) -> tuple[int, int]:
        """Offsets in ``flat`` of the original ``text[start:end]`` (the nearest characters kept)."""
        first = bisect_left(self.where, start, 0, len(self.where) - 1)
        last = bisect_left(self.where, end, 0, len(self.where) - 1)
        return first, max(first, last)


@lru_cache(maxsize=8192)
def layout(text: str) -> Layout:
    """The flattened reading copy of ``text`` (see :class:`Layout`)."""
    flat: list[str] = []
    where: list[int] = []
    position = 0
    for match in _RUN.finditer(text):
        flat.append(text[position:match.start()])
        where.extend(range(position, match.start()))
        if flat and match.start() > 0 and match.end() < len(text):
            flat.append(" ")
            where.append(match.start())
        position = match.end()
    flat.append(text[position:])
    where.extend(range(position, len(text)))
    where.append(len(text))
    return Layout("".join(flat), tuple(where))
