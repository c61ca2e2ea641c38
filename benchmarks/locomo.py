"""LoCoMo retrieval benchmark: does ``recall`` find the turns that answer a question?

LoCoMo (snap-research/locomo, CC BY-NC: never commit the data or any excerpt of it) holds 10 long
two-person conversations whose questions are labelled with the turns ("D3:7" = session 3, turn 7)
that answer them. Each conversation is remembered turn by turn as one user (user_id = sample id;
one ``remember`` call per session, each turn with source_id = its dia_id, at = the session's date,
speaker = who said it, role "user": both people are humans). Each question (category 5, the
adversarial ones, is skipped) is asked with ``recall(k=25)``; recall@k is the share of its evidence
turns among the first k distinct source turns of the hits, in hit order. Baselines on the same
turns and metric: BM25 over "speaker: text", BM25 with context (the turn twice, the two turns
before and the one after in its session), and with a model embedder cosine over turns and
reciprocal-rank fusion of BM25 and cosine. An image a turn shares is part of its text, as
"[shares <caption>]", for every system alike.

Get the data (outside the repo):  fetch github:snap-research/locomo, then its data/locomo10.json
(a list of {sample_id, conversation, qa}). Run:
  pip install -e '.[dev]'        # bm25s
  python -m benchmarks.locomo --data /work/data/locomo/locomo10.json [--store sqlite|neo4j]
      [--embedder hashing|sentence-transformers:all-MiniLM-L6-v2|openai:<model>] [--editor [--topics]]
      [--conversations 0-4] [--out benchmarks/results/locomo-sqlite-hashing.json]
The results (a JSON and a .txt table beside it) hold only our numbers. Choose weights on
conversations 0-4, report on 5-9.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import tempfile
import time
from collections import defaultdict
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

import benchmarks.store as sb  # log, pcts, machine_info and the Neo4j the store benchmarks start
from dualmem_core import Editor, Writer, open_store
from dualmem_core.editor import EditorConfig
from dualmem_core.providers import ProviderConfig, make_embedder
from dualmem_core.providers.config import embedder_kind

KS, DEPTH, RRF_K = (5, 10, 25), 25, 60
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}  # 5: adversarial, skipped


def parse_when(text: str) -> datetime:
    """LoCoMo's session date, "9:05 am on 3 February, 2022", as an aware UTC datetime."""
    return datetime.strptime(" ".join(text.split()), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def evidence_ids(evidence: list[str]) -> list[str]:
    """Normalised dia ids: a few labels are like "D4:2; D5:9", "D:7:3" or "D12:04"; a bare "D" is dropped."""
    return list(dict.fromkeys(f"D{int(s)}:{int(t)}" for e in evidence
                              for s, t in re.findall(r"D:?(\d+):(\d+)", e)))


def turns(sample: dict) -> list[dict]:
    """Every turn in order: dia_id, session number, speaker, text, at."""
    conv, out = sample["conversation"], []
    sessions = sorted(int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k) and conv[k])
    for s in sessions:
        at = parse_when(conv[f"session_{s}_date_time"])
        for t in conv[f"session_{s}"]:
            text = t["text"] + (f" [shares {t['blip_caption']}]" if t.get("blip_caption") else "")
            out.append({"dia_id": t["dia_id"], "session": s, "speaker": t["speaker"], "text": text, "at": at})
    return out


def questions(sample: dict) -> list[dict]:
    """Questions with evidence, adversarial ones (category 5) left out."""
    return [{"question": q["question"], "category": q["category"], "evidence": ev}
            for q in sample["qa"]
            if q["category"] in CATEGORIES and (ev := evidence_ids(q.get("evidence", [])))]


def distinct(ids) -> list[str]:
    return list(dict.fromkeys(ids))


def recall_at(ranked: list[str], evidence: list[str], k: int) -> float:
    """Share of the evidence among the first k distinct ranked source ids."""
    return len(set(distinct(ranked)[:k]) & set(evidence)) / len(evidence)


def dualmem_sources(hits) -> list[str]:
    return distinct(s for h in hits for s in h.sources)


def remember(writer: Writer, sample: dict) -> tuple[int, float]:
    """(messages, seconds): one batched remember per session."""
    by_session: dict[int, list[dict]] = defaultdict(list)
    for t in turns(sample):
        by_session[t["session"]].append(t)
    seconds = 0.0
    for s, ts in by_session.items():
        batch = [{"role": "user", "content": t["text"], "speaker": t["speaker"], "source_id": t["dia_id"],
                  "at": t["at"]} for t in ts]
        start = time.perf_counter()
        writer.remember(batch, user_id=sample["sample_id"], session_id=f"session_{s}")
        seconds += time.perf_counter() - start
    return sum(map(len, by_session.values())), seconds


def baselines(sample: dict, qs: list[dict], embedder, dense: bool) -> dict[str, list[list[str]]]:
    """Each baseline's top DEPTH dia ids per question."""
    import bm25s  # the optional `bench` extra

    ts = turns(sample)
    ids = [t["dia_id"] for t in ts]
    plain = [f"{t['speaker']}: {t['text']}" for t in ts]
    # A turn often answers only with the turn before it ("Where?" "Lisbon"): index its neighbours too.
    def near(i: int) -> list[str]:
        return [plain[j] for j in (i - 2, i - 1, i + 1)
                if 0 <= j < len(ts) and ts[j]["session"] == ts[i]["session"]]

    context = [" ".join([plain[i], plain[i], *near(i)]) for i in range(len(ts))]
    asked = [q["question"] for q in qs]
    tokens = bm25s.tokenize(asked, stopwords="en", return_ids=False, show_progress=False)

    def bm25(corpus: list[str], depth: int = DEPTH) -> list[list[int]]:
        index = bm25s.BM25()
        index.index(bm25s.tokenize(corpus, stopwords="en", show_progress=False), show_progress=False)
        found, _ = index.retrieve(tokens, k=min(depth, len(corpus)), show_progress=False)
        return [list(row) for row in found]

    ranked = {"bm25": bm25(plain), "bm25+context": bm25(context)}
    if dense:
        docs, queries = (np.asarray(embedder.embed(x), dtype=np.float32) for x in (plain, asked))
        docs /= np.linalg.norm(docs, axis=1, keepdims=True) + 1e-9
        cosine = [list(np.argsort(-(docs @ (q / (np.linalg.norm(q) + 1e-9))))[:100]) for q in queries]
        ranked["cosine"] = [row[:DEPTH] for row in cosine]
        fused = []
        for lexical, semantic in zip(bm25(plain, 100), cosine, strict=True):
            score: dict[int, float] = defaultdict(float)
            for row in (lexical, semantic):
                for rank, i in enumerate(row):
                    score[i] += 1 / (RRF_K + rank + 1)
            fused.append(sorted(score, key=score.get, reverse=True)[:DEPTH])
        ranked["rrf(bm25,cosine)"] = fused
    return {name: [[ids[i] for i in row] for row in rows] for name, rows in ranked.items()}


@contextmanager
def opened_store(kind: str, dimension: int):
    """A fresh store in a temp dir: the store benchmarks' opener (and its local Neo4j) at their size."""
    tmp = Path(tempfile.mkdtemp(prefix=f"dualmem-locomo-{kind}-"))
    try:
        if dimension == sb.DIM:
            with sb.opened(kind, tmp) as (store, _server):
                yield store
        elif kind == "sqlite":
            with open_store(f"sqlite:///{tmp / 'bench.db'}", dimension=dimension) as store:
                yield store
        else:
            raise SystemExit(f"--store neo4j takes a {sb.DIM}-dimensional embedder, not {dimension}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(samples: list[dict], store: str = "sqlite", embedder_spec: str = "hashing",
        editor: bool = False, topics: bool = False) -> dict:
    """Per-question recall@k of every system, recall latency, ingest and Editor time. ``topics``:
    the Editor's optional ``topics`` stage on (``docs/layers.md``)."""
    embedder = make_embedder(ProviderConfig(embedder=embedder_spec))
    dense = embedder_kind(embedder_spec)[0] != "hashing"
    rows: dict[str, list[dict]] = defaultdict(list)
    latency, messages, ingest_s, editor_s, skipped = [], 0, 0.0, 0.0, 0
    with opened_store(store, embedder.dimension) as st:
        writer = Writer(st, embedder=embedder)
        for sample in samples:
            user, qs = sample["sample_id"], questions(sample)
            skipped += len(sample["qa"]) - len(qs)
            sb.log(f"{user}: remember {len(turns(sample))} turns, ask {len(qs)} questions")
            n, s = remember(writer, sample)
            messages, ingest_s = messages + n, ingest_s + s
            if editor:
                start = time.perf_counter()
                Editor(st, config=EditorConfig(topics=topics)).run(user)
                editor_s += time.perf_counter() - start
            ranked = defaultdict(list)
            for q in qs:
                start = time.perf_counter()
                # record_access=False: a measurement, so earlier questions must not reorder later ones
                hits = writer.recall(q["question"], user_id=user, k=DEPTH, record_access=False)
                latency.append((time.perf_counter() - start) * 1000)
                ranked["dualmem"].append(dualmem_sources(hits))
            ranked.update(baselines(sample, qs, embedder, dense))
            for name, lists in ranked.items():
                rows[name] += [{"sample": user, "category": q["category"],
                                **{f"r@{k}": recall_at(r, q["evidence"], k) for k in KS}}
                               for q, r in zip(qs, lists, strict=True)]
    return {"rows": dict(rows), "latency_ms": latency, "messages": messages, "ingest_s": ingest_s,
            "editor_s": editor_s if editor else None, "skipped_questions": skipped}


def summarise(result: dict) -> dict:
    def mean(rows: list[dict]) -> dict:
        return {"n": len(rows), **{f"r@{k}": float(np.mean([r[f"r@{k}"] for r in rows])) for k in KS}}

    systems = {name: {"overall": mean(rows), **{label: mean([r for r in rows if r["category"] == c])
                                                for c, label in CATEGORIES.items()
                                                if any(r["category"] == c for r in rows)}}
               for name, rows in result["rows"].items()}
    return {"systems": systems, "recall_latency": sb.pcts(result["latency_ms"]),
            "messages": result["messages"], "ingest_s": result["ingest_s"],
            "messages_per_s": result["messages"] / result["ingest_s"], "editor_s": result["editor_s"],
            "skipped_questions": result["skipped_questions"]}


def triple(scores: dict) -> str:
    return " / ".join(f"{100 * scores[f'r@{k}']:4.1f}" for k in KS)


def render(summary: dict, title: str) -> str:
    systems = summary["systems"]
    groups = ["overall", *[c for c in CATEGORIES.values() if c in next(iter(systems.values()))]]
    head = f"{'group':<13}{'n':>6}" + "".join(f"{name:>{max(len(name) + 2, 20)}}" for name in systems)
    lines = [title, "R@5 / R@10 / R@25 (share of evidence turns among the first k distinct source turns)",
             head]
    for g in groups:
        cells = "".join(f"{triple(s[g]):>{max(len(n) + 2, 20)}}" for n, s in systems.items())
        lines.append(f"{g:<13}{next(iter(systems.values()))[g]['n']:>6}{cells}")
    lat = summary["recall_latency"]
    lines.append(f"dualmem recall k={DEPTH}: p50 {lat['p50_ms']:.1f} ms, p95 {lat['p95_ms']:.1f} ms;"
                 f" ingest {summary['messages']:,} messages in {summary['ingest_s']:.1f} s"
                 f" = {summary['messages_per_s']:,.0f} messages/s (batched per session)"
                 + (f"; Editor {summary['editor_s']:.1f} s" if summary["editor_s"] is not None else "")
                 + f"; {summary['skipped_questions']} questions skipped (category 5 or no evidence)")
    return "\n".join(lines) + "\n"


def select(samples: list[dict], spec: str | None) -> list[dict]:
    """``0-4`` or ``0,2,5`` (indices in file order)."""
    if not spec:
        return samples
    picked = set()
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        picked.update(range(int(lo), int(hi or lo) + 1))
    return [s for i, s in enumerate(samples) if i in picked]


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default=os.environ.get("DUALMEM_LOCOMO"), help="or DUALMEM_LOCOMO")
    p.add_argument("--store", choices=("sqlite", "neo4j"), default="sqlite")
    p.add_argument("--embedder", default="hashing", help="hashing (default), sentence-transformers:<name>")
    p.add_argument("--editor", action="store_true", help="run the Editor on each conversation before asking")
    p.add_argument("--topics", action="store_true", help="with --editor: its optional topics stage on")
    p.add_argument("--conversations", help="a subset by index, e.g. 0-4 or 5-9")
    p.add_argument("--out", help="JSON path; default benchmarks/results/locomo-<store>-<embedder>[...].json")
    args = p.parse_args(argv)
    if not args.data:
        p.error("give --data PATH to locomo10.json or set DUALMEM_LOCOMO")
    samples = select(json.loads(Path(args.data).read_text()), args.conversations)
    slug = re.sub(r"[^A-Za-z0-9.]+", "-", args.embedder).strip("-")
    suffix = (f"-conv{args.conversations}" if args.conversations else "") + ("-editor" if args.editor else "")
    suffix += "-topics" if args.editor and args.topics else ""
    out = Path(args.out or f"benchmarks/results/locomo-{args.store}-{slug}{suffix}.json")
    summary = summarise(run(samples, args.store, args.embedder, args.editor, args.editor and args.topics))
    title = (f"LoCoMo {len(samples)} conversations ({', '.join(s['sample_id'] for s in samples)}),"
             f" store {args.store}, embedder {args.embedder}, editor {'on' if args.editor else 'off'}"
             + (" (topics on)" if args.editor and args.topics else ""))
    text = render(summary, title)
    print(text)
    out.parent.mkdir(parents=True, exist_ok=True)
    config = {**vars(args), "data": Path(args.data).name, "conversations": [s["sample_id"] for s in samples]}
    out.write_text(json.dumps({"config": config, "machine": sb.machine_info(), **summary}, indent=2) + "\n")
    out.with_suffix(".txt").write_text(text)
    sb.log(f"wrote {out} and {out.with_suffix('.txt')}")


if __name__ == "__main__":
    main()
