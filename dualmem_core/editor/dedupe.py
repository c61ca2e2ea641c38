"""Stage 1, deduplicate: copies of a memory point ``DUPLICATE_OF`` at one canonical memory.

Candidates are each new memory's nearest live neighbours of the same kind (never all pairs).
A pair is the same memory when:

1. both carry a structured triple, the triples match (subject, predicate, object, polarity) and
   they tell of one stretch of time (``stints.py``: "I work at Brightline" and, later, "my last
   day at Brightline was June 27" are one fact; "I live in Portland" before and after a move to
   Seattle are two); two facts whose triples differ are different, however close their words.
   Every repeat of a new fact's triple is compared, not only its nearest neighbours;
2. otherwise the normalised texts are equal; or, with no number, negation or name telling them
   apart, they embed at ``near_cosine`` or more and share ``near_overlap`` of their content words
   (near-exact) or embed as close and share ``paraphrase_overlap`` (a paraphrase);
3. the grey band left (close embeddings, little shared wording) goes to the LLM when there is
   one and otherwise stays apart: a missed duplicate costs a little ranking, a wrong one hides
   a fact.

The canonical memory of a cluster is the oldest. A copy gets a version with status
``duplicate`` (so recall stops ranking it separately), the edge, and its provenance copied onto
the canonical memory (``FROM`` edges), so the sources of what was said twice are all kept.
"""

from __future__ import annotations

from collections.abc import Callable

from ..store import EdgeType
from .config import EditorConfig
from .decisions import Decision, Revise, StageOp, StageResult, edge
from .judge import Judge
from .stints import fact_slots, stints
from .text_features import TextFeatures, conflict, features, jaccard
from .view import GraphView, object_key

STAGE = "dedupe"


def deduplicate(view: GraphView, config: EditorConfig, judge: Judge | None = None) -> StageResult:
    result = StageResult(STAGE)
    canonical_of = {e.src_id: e.dst_id for e in view.open_edges(EdgeType.DUPLICATE_OF)}
    parent: dict[str, str] = {}

    def find(m: str) -> str:
        m = canonical_of.get(m, m)
        while parent.get(m, m) != m:
            m = parent[m]
        return m

    def union(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            older, newer = sorted((ra, rb), key=view.first_seen)
            parent[newer] = older

    cache: dict[str, TextFeatures] = {}  # a memory meets several neighbours: parse it once per run

    def parsed(text: str) -> TextFeatures:
        if text not in cache:
            cache[text] = features(text)
        return cache[text]

    arrived = view.new_memory_ids()
    new_ids = [m for m in arrived if view.live(m) and m not in canonical_of]
    grey: list[tuple[str, str, float]] = []
    seen: set[tuple[str, str]] = set()
    why_same: dict[str, tuple[str, float]] = {}  # memory -> its strongest "same" evidence

    def same(a: str, b: str, reason: str, cosine: float) -> None:
        for m in (a, b):
            if cosine >= why_same.get(m, ("", -1.0))[1]:
                why_same[m] = (reason, cosine)
        union(a, b)

    stint_of: dict[str, str] = {}  # triple fact -> its stint's first telling
    new = set(arrived)
    for members in fact_slots(view).values():
        if not new.intersection(members):
            continue  # incremental: only slots something new arrived in
        for tellings in stints(view, members):
            stint_of.update(dict.fromkeys(tellings, tellings[0]))
            for repeat in tellings[1:]:
                same(tellings[0], repeat, "same triple", view.cosine(tellings[0], repeat))
                seen.add((min(tellings[0], repeat), max(tellings[0], repeat)))

    near = view.near(new_ids, config.neighbours, config.candidate_cosine)
    for memory_id in new_ids:
        for other, cosine in near[memory_id]:
            if view.memories[other].kind != view.memories[memory_id].kind:
                continue
            pair = (min(memory_id, other), max(memory_id, other))
            if pair in seen:
                continue
            seen.add(pair)
            verdict, reason = _compare(view, memory_id, other, cosine, config, parsed, stint_of)
            if verdict is True:
                same(memory_id, other, reason, cosine)
            elif verdict is None:
                grey.append((memory_id, other, cosine))
            elif cosine >= config.near_cosine:  # worth showing: close, yet kept apart
                result.decisions.append(
                    Decision("kept_apart", memory_id, reason, other, {"cosine": round(cosine, 3)})
                )
    if grey:
        texts = [(view.current[a].text, view.current[b].text) for a, b, _ in grey]
        verdicts = (judge or Judge(None)).same(STAGE, "Memory", texts)
        for (a, b, cosine), verdict in zip(grey, verdicts, strict=True):
            if verdict:
                same(a, b, "llm: same", cosine)
            else:
                why = "grey band, no model" if verdict is None else "llm: different"
                result.decisions.append(Decision("kept_apart", a, why, b, {"cosine": round(cosine, 3)}))
    for copy in sorted(parent):
        canonical = find(copy)
        if canonical == copy or not view.live(copy):
            continue
        reason, cosine = why_same.get(copy, ("same cluster", 0.0))
        ops: list[StageOp] = [
            Revise(copy, view.current[copy].id, {"status": "duplicate"}),
            edge(view, EdgeType.DUPLICATE_OF, copy, canonical, rule=reason, score=round(cosine, 4)),
        ]
        have = set(view.sources.get(canonical, ()))
        ops += [
            edge(view, EdgeType.FROM, canonical, ep) for ep in view.sources.get(copy, ()) if ep not in have
        ]
        result.decisions.append(
            Decision("duplicate", copy, reason, canonical, {"cosine": round(cosine, 3)}, ops)
        )
    return result


def _compare(
    view: GraphView,
    a: str,
    b: str,
    cosine: float,
    config: EditorConfig,
    parsed: Callable[[str], TextFeatures],
    stint_of: dict[str, str],
) -> tuple[bool | None, str]:
    """(True, rule) same; (False, rule) different; (None, "grey band") unproven."""
    va, vb = view.current[a], view.current[b]
    if a in stint_of and stint_of.get(a) == stint_of.get(b):
        return True, "same triple"  # one fact told twice (an acronym for a name counts too)
    if va.predicate and vb.predicate:
        same = (
            view.fact_subject(a) == view.fact_subject(b)
            and va.predicate == vb.predicate
            and object_key(va.object) == object_key(vb.object)
            and va.negated == vb.negated
        )
        if not same:
            return False, "different triple"
        # Repeats of a triple were all compared above (the slot's stints); a neighbour pair
        # left apart there is the same triple about another stretch of time.
        return False, "same triple, another stint"
    if va.content_hash == vb.content_hash:
        return True, "same text"
    fa, fb = parsed(va.text), parsed(vb.text)
    why = conflict(fa, fb)
    if why:
        return False, why
    overlap = jaccard(fa.content, fb.content)
    if cosine >= config.near_cosine and overlap >= config.near_overlap:
        return True, "near-exact text"
    if cosine >= config.near_cosine and overlap >= config.paraphrase_overlap:
        return True, "paraphrase"
    if cosine >= config.grey_cosine:
        return None, "grey band"
    return False, "too far apart"
