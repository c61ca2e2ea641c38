"""``dualmem eval`` and the demo's evaluation: pick embedders, run the loop, write the report."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..errors import InvalidInput
from ..providers import Embedder, HashingEmbedder
from ..store import open_store
from .fixture import DEFAULT_FOLDER, PARTS, load_fixture
from .harness import EvalResult, evaluate
from .report import COUNTS, write_report

THRESHOLDS = DEFAULT_FOLDER.parent / "thresholds.json"
EMBEDDERS = ("recorded", "hashing")


@dataclass
class Evaluation:
    results: list[EvalResult]
    paths: dict[str, Path]
    failures: list[str]  # "part metric: value < threshold" for every threshold not met


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
    limits = load_thresholds(thresholds) if thresholds is not None and thresholds.exists() else None
    paths = write_report(results, out, limits)
    return Evaluation(results, paths, failures(results[0], limits) if limits else [])


def load_thresholds(path: Path) -> dict[str, dict[str, float]]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise InvalidInput(f"{path}: not readable JSON ({exc})") from None
    return {part: limits for part, limits in data.items() if not part.startswith("_")}


def failures(result: EvalResult, limits: dict[str, dict[str, float]]) -> list[str]:
    """Every threshold the (first embedder's) result does not meet, per part."""
    return [f"{part} {miss}" for part, wanted in limits.items() if part in result.parts
            for miss in below(result.parts[part].after, wanted)]


def below(values: dict[str, float], wanted: dict[str, float]) -> list[str]:
    """"metric: value < limit" for each limit not met; counts and the stale-first rate must stay
    at or under theirs, every other metric at or over."""
    out = []
    for name, limit in wanted.items():
        value = values[name]
        at_most = name in COUNTS or name == "stale_first_rate"
        if (value > limit) if at_most else (value < limit):
            out.append(f"{name}: {value:.3f} {'>' if at_most else '<'} {limit}")
    return out
