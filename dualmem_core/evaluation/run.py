"""``dualmem eval`` and the demo's evaluation: pick embedders, run the loop, write the report."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import InvalidInput
from ..providers import Embedder, HashingEmbedder
from ..store import open_store
from . import floors as floors_
from .fixture import PARTS
from .fixture_loading import load_fixture
from .harness import EvalResult, evaluate
from .report import write_report

THRESHOLDS = floors_.THRESHOLDS
EMBEDDERS = ("recorded", "hashing")


@dataclass
class Evaluation:
    results: list[EvalResult]
    paths: dict[str, Path]
    failures: list[str]  # "embedder on store: part metric: value < floor" for every floor not met


def make_embedder(name: str, dimension: int = 384) -> Embedder:
    """``recorded``: the committed all-MiniLM-L6-v2 vectors of the fixture (no model needed);
    ``hashing``: the deterministic fallback."""
    if name == "hashing":
        return HashingEmbedder(dimension)
    if name == "recorded":
        from .embeddings import RecordedEmbedder  # the artifact is read only when asked for

        return RecordedEmbedder()
    raise InvalidInput(f"unknown evaluation embedder {name!r}; use one of {', '.join(EMBEDDERS)}")


def available_embedders() -> list[str]:
    """The recorded embedder when its artifact is in the checkout, and the hashing one."""
    try:
        from .embeddings import DEFAULT_ARTIFACT
    except ImportError:
        return ["hashing"]
    return ["recorded", "hashing"] if Path(DEFAULT_ARTIFACT).exists() else ["hashing"]


def run_evaluation(
    out: str | Path,
    *,
    store_url: str | None = None,
    embedders: list[str] | None = None,
    parts: tuple[str, ...] = PARTS,
    thresholds: Path | None = THRESHOLDS,
) -> Evaluation:
    """Evaluate with each embedder on its own store (a file in ``out`` unless ``store_url``)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    fixture = load_fixture()
    results = []
    for name in embedders or available_embedders():
        embedder = make_embedder(name)
        url = store_url or f"sqlite:///{out / f'eval-{name}.db'}"
        if store_url is None:
            Path(out / f"eval-{name}.db").unlink(missing_ok=True)
        with open_store(url, dimension=embedder.dimension) as store:
            results.append(evaluate(store, fixture, embedder=embedder, parts=parts))
    floors = floors_.load(thresholds) if thresholds is not None and thresholds.exists() else None
    paths = write_report(results, out, floors)
    return Evaluation(results, paths, floors_.failures(results, floors) if floors else [])
