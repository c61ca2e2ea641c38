"""The evaluation's metrics, each defined exactly, over a user's stored graph and recall results.

Stored memories are tied to gold facts by provenance and content, never by id:

    a memory *expresses* gold fact F when one of the source ids of the episodes it came from
    (its open ``FROM`` edges) is one of F's sources, and F's object, normalised, occurs in the
    memory's text, normalised, as whole words (``said_in``); for the duplicate and supersession
    metrics a fact memory must also carry F's predicate ("Mateo is 8" does not express "Mateo
    is Jon's son", though both came from one message and name Mateo).

Observations (raw messages) can express facts too; the duplicate and supersession metrics look
only at fact memories (what the extractor made), except ``contradiction_recall_any``, which
looks at facts and messages alike (a message needs no predicate); retrieval looks at every hit.
A pair metric's precision is ``correct / predicted`` and recall ``found / gold``, with the
counts reported beside them. A ratio with nothing to count (0/0) is ``None``, shown as "–": it was neither
right nor wrong, and a 100% there would be a number nobody measured.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from itertools import combinations

from ..editor.view import follow
from ..store import EdgeType, UserGraph
from ..store.models import normalize_text
from ..timeutil import FAR_FUTURE
from ..vocab.predicates import canonical
from .fixture import Fixture, GoldFact, Question


def _key(text: str) -> str:
    return normalize_text(text).strip(" .!?,;:'\"")


def said_in(obj: str, text: str) -> bool:
    """Whether the object, normalised, occurs in the text, normalised, as whole words: the age 9
    is not in "Kayla is 19 years old", nor "Ann" in "Anna lives here"."""
    key = _key(obj)
    return bool(key) and re.search(rf"(?<!\w){re.escape(key)}(?!\w)", _key(text)) is not None


@dataclass
class StoredUser:
    """One user's stored graph, indexed for the metrics."""

    graph: UserGraph
    sources: dict[str, set[str]] = field(default_factory=dict)  # memory -> source ids
    text: dict[str, str] = field(default_factory=dict)  # memory -> its current text
    status: dict[str, str] = field(default_factory=dict)  # memory -> its current status
    kind: dict[str, str] = field(default_factory=dict)
    predicate: dict[str, str | None] = field(default_factory=dict)  # memory -> its triple's predicate

    def __post_init__(self) -> None:
        source_of = {e.id: e.source_id or e.id for e in self.graph.episodes}
        for e in self.graph.edges:
            if e.type == EdgeType.FROM and e.tx_to == FAR_FUTURE and e.dst_id in source_of:
                self.sources.setdefault(e.src_id, set()).add(source_of[e.dst_id])
        for v in self.graph.versions:
            if v.tx_to == FAR_FUTURE:
                self.text[v.memory_id], self.status[v.memory_id] = v.text, v.status
                self.predicate[v.memory_id] = v.predicate
        self.kind = {m.id: m.kind for m in self.graph.memories}

    def open_edges(self, type_: EdgeType) -> list:
        return [e for e in self.graph.edges if e.type == type_ and e.tx_to == FAR_FUTURE]

    def expresses(self, memory_id: str, fact: GoldFact, *, same_predicate: bool = False) -> bool:
        if same_predicate and canonical(self.predicate.get(memory_id) or "") != canonical(fact.predicate):
            return False
        return bool(self.sources.get(memory_id, set()) & set(fact.sources)) and said_in(
            fact.object, self.text.get(memory_id, "")
        )

    def facts_of_memory(self, memory_id: str, facts: list[GoldFact]) -> set[str]:
        """The gold facts a fact memory states (same predicate, object, and a shared source)."""
        return {f.id for f in facts if self.expresses(memory_id, f, same_predicate=True)}


def ratio(num: int, den: int) -> float | None:
    """``num / den``, or None when there is nothing to count."""
    return num / den if den else None


def duplicates(stored: StoredUser, facts: list[GoldFact]) -> dict[str, int]:
    """Duplicate pairwise precision and recall, over fact memories.

    * predicted pairs: every ``DUPLICATE_OF`` edge (copy, canonical) the Editor made;
    * a predicted pair is correct when both memories express one same gold fact; pairs where
      neither expresses any gold fact cannot be judged and are counted apart (``unjudged``);
    * gold pairs: for each gold fact, every pair of its sources;
    * a gold pair (F, s1, s2) is found when a fact memory expressing F from s1 and one from s2
      are the same memory (the Writer merged an exact repeat) or in one duplicate cluster.
    """
    fact_mems = [m for m, k in stored.kind.items() if k == "fact"]
    expressed = {m: stored.facts_of_memory(m, facts) for m in fact_mems}
    canonical = {e.src_id: e.dst_id for e in stored.open_edges(EdgeType.DUPLICATE_OF)}

    def root(m: str) -> str:
        return follow(canonical, m)

    correct = unjudged = predicted = 0
    for e in stored.open_edges(EdgeType.DUPLICATE_OF):
        a, b = expressed.get(e.src_id, set()), expressed.get(e.dst_id, set())
        if not a and not b:
            unjudged += 1
            continue
        predicted += 1
        correct += bool(a & b)
    found = gold = 0
    for f in facts:
        clusters_of_source: dict[str, set[str]] = defaultdict(set)
        for m in fact_mems:
            if f.id in expressed[m]:
                for s in stored.sources[m] & set(f.sources):
                    clusters_of_source[s].add(root(m))
        for s1, s2 in combinations(sorted(set(f.sources)), 2):
            gold += 1
            found += bool(clusters_of_source[s1] & clusters_of_source[s2])
    return {
        "dup_correct": correct,
        "dup_predicted": predicted,
        "dup_found": found,
        "dup_gold": gold,
        "dup_unjudged": unjudged,
    }


def provenance(stored: StoredUser, facts: list[GoldFact]) -> dict[str, int]:
    """Provenance precision: of the messages a fact memory lists as its sources, the share that
    state the fact.

    * judged links: every open ``FROM`` edge of a fact memory that expresses some gold fact
      (same predicate, object and a shared source);
    * a link is correct when the episode's source id is one of the sources of a gold fact the
      memory expresses (gold sources are the messages that state the fact, not those that only
      name its person); links of memories expressing no gold fact cannot be judged.

    A memory's sources are what recall shows as ``h.sources`` and what ``forget`` of a message
    follows, so a wrong link misleads both: this is the metric that says so.
    """
    source_of = {e.id: e.source_id or e.id for e in stored.graph.episodes}
    by_id = {f.id: f for f in facts}
    correct = judged = 0
    for e in stored.open_edges(EdgeType.FROM):
        if stored.kind.get(e.src_id) != "fact" or e.dst_id not in source_of:
            continue
        expressed = stored.facts_of_memory(e.src_id, facts)
        if not expressed:
            continue
        judged += 1
        correct += any(source_of[e.dst_id] in by_id[f].sources for f in expressed)
    return {"prov_correct": correct, "prov_judged": judged}


def supersessions(stored: StoredUser, fixture: Fixture, user_id: str) -> dict[str, int]:
    """Contradiction (supersession) precision, recall, direction accuracy, and current facts
    wrongly superseded.

    * gold pairs: consecutive facts (older, newer) of each update chain;
    * predicted: every open ``SUPERSEDES`` edge (newer memory -> older memory) between facts;
    * an edge *matches* a gold pair when one end expresses the older fact and the other the
      newer; it has the right direction when its source expresses the newer;
    * precision: matching edges / edges; recall: gold pairs matched by some edge;
      direction accuracy: right-direction matches / matches;
    * wrongly superseded: gold facts marked current of which some fact memory expressing it has
      status ``superseded`` (rate over current gold facts that some fact memory expresses).

    Contradiction recall over *any* memory, facts or messages (``sup_any_found`` of
    ``sup_gold``), since an update told in the user's own words may be recorded between their
    messages (``editor/replaced.py``) whether or not the extractor made a triple: gold pairs
    (old, new) matched by some open ``SUPERSEDES`` edge whose older end (destination)
    expresses old and newer end (source) expresses new, where a fact memory expresses a gold
    fact as above and a message (observation) when it shares a source with the fact and says
    its object (no predicate). Unlike ``contradiction_recall`` (an edge either way round), the
    edge must point from the new to the old: one backwards makes the current state past. It
    has no precision counterpart: the gold tells an end without
    a successor ("was vegetarian until Easter") as one fact, not a pair, so a message edge that
    rightly records it (both messages express that one fact) would be judged wrong.
    """
    facts = fixture.facts_of(user_id)
    pairs = [
        (chain.chain[i], chain.chain[i + 1])
        for chain in fixture.updates
        if chain.user_id == user_id
        for i in range(len(chain.chain) - 1)
    ]
    fact_mems = [m for m, k in stored.kind.items() if k == "fact"]
    expressed = {m: stored.facts_of_memory(m, facts) for m in fact_mems}
    edges = [
        e for e in stored.open_edges(EdgeType.SUPERSEDES) if e.src_id in expressed and e.dst_id in expressed
    ]
    matching = right = 0
    matched_pairs = set()
    for e in edges:
        newer, older = expressed[e.src_id], expressed[e.dst_id]
        hit = False
        for old, new in pairs:
            if old in older and new in newer:
                hit, right = True, right + 1
                matched_pairs.add((old, new))
                break
            if old in newer and new in older:
                hit = True
                matched_pairs.add((old, new))
                break
        matching += hit
    current = [f for f in facts if f.current and any(f.id in expressed[m] for m in fact_mems)]
    wrong = [
        f
        for f in current
        if any(f.id in expressed[m] and stored.status[m] == "superseded" for m in fact_mems)
    ]
    told = {  # any memory -> the gold facts it expresses
        m: expressed[m] if k == "fact" else {f.id for f in facts if stored.expresses(m, f)}
        for m, k in stored.kind.items()
        if k in ("fact", "observation")
    }
    found_any = {
        (old, new)
        for e in stored.open_edges(EdgeType.SUPERSEDES)
        for old, new in pairs
        if old in told.get(e.dst_id, ()) and new in told.get(e.src_id, ())
    }
    return {
        "sup_matching": matching,
        "sup_predicted": len(edges),
        "sup_found": len(matched_pairs),
        "sup_gold": len(pairs),
        "sup_right": right,
        "current_wrongly_superseded": len(wrong),
        "current_expressed": len(current),
        "sup_any_found": len(found_any),
    }


def entities(stored: StoredUser, fixture: Fixture, user_id: str) -> dict[str, int]:
    """Entity pairwise precision, recall and wrong merges, over the gold mentions.

    * each gold mention (source id, name) resolves to the stored entity that a memory from that
      source mentions under that name (normalised name or alias), followed through
      ``MERGED_INTO`` to its canonical entity; a mention that resolves to nothing is unresolved;
    * predicted-same: two resolved mentions with one canonical entity; gold-same: one gold entity;
    * precision: gold-same among predicted-same pairs; recall: predicted-same among gold-same pairs
      (unresolved mentions are never predicted-same);
    * wrong merges: pairs of different gold entities whose mentions share a canonical entity.
    """
    g = stored.graph
    names = {e.id: {_key(n) for n in (e.name, *e.aliases)} for e in g.entities}
    into = {e.src_id: e.dst_id for e in stored.open_edges(EdgeType.MERGED_INTO)}
    by_source: dict[str, set[str]] = defaultdict(set)  # source id -> entity ids its memories mention
    for e in stored.open_edges(EdgeType.MENTIONS):
        for s in stored.sources.get(e.src_id, ()):
            by_source[s].add(e.dst_id)

    def canon(entity_id: str) -> str:
        return follow(into, entity_id)

    mentions = []  # (gold entity, predicted canonical or None)
    for gold in (x for x in fixture.entities if x.user_id == user_id):
        for mention in gold.mentions:
            found = {canon(e) for e in by_source.get(mention.source_id, ()) if _key(mention.name) in names[e]}
            mentions.append((gold.id, min(found) if found else None))
    tp = pred = gold_pairs = 0
    wrong = set()
    for (ga, pa), (gb, pb) in combinations(mentions, 2):
        same_pred = pa is not None and pa == pb
        pred += same_pred
        gold_pairs += ga == gb
        tp += same_pred and ga == gb
        if same_pred and ga != gb:
            wrong.add(frozenset((ga, gb)))
    resolved = sum(p is not None for _, p in mentions)
    return {
        "ent_correct": tp,
        "ent_predicted": pred,
        "ent_gold": gold_pairs,
        "wrong_merges": len(wrong),
        "mentions_resolved": resolved,
        "mentions_gold": len(mentions),
    }


def graph_metrics(counts: dict[str, int]) -> dict[str, float | None]:
    """The pair metrics from counts summed over users (micro-averaged: big users weigh more)."""
    c = counts
    return {
        "duplicate_precision": ratio(c["dup_correct"], c["dup_predicted"]),
        "duplicate_recall": ratio(c["dup_found"], c["dup_gold"]),
        "provenance_precision": ratio(c["prov_correct"], c["prov_judged"]),
        "contradiction_precision": ratio(c["sup_matching"], c["sup_predicted"]),
        "contradiction_recall": ratio(c["sup_found"], c["sup_gold"]),
        # any memory, facts or messages: gold update pairs some SUPERSEDES edge records with its
        # newer end expressing the newer fact and its older end the older (see supersessions)
        "contradiction_recall_any": ratio(c["sup_any_found"], c["sup_gold"]),
        "direction_accuracy": ratio(c["sup_right"], c["sup_matching"]),
        "current_wrongly_superseded": c["current_wrongly_superseded"],
        "entity_precision": ratio(c["ent_correct"], c["ent_predicted"]),
        "entity_recall": ratio(c["ent_correct"], c["ent_gold"]),
        "wrong_merges": c["wrong_merges"],
    }


@dataclass
class Answered:
    """What recall returned for one question: per hit, the gold facts it answers."""

    question: Question
    hits: list[set[str]]  # fact ids each hit (in rank order) expresses


def answered(question: Question, hits: list, fixture: Fixture) -> Answered:
    """Tie recall hits (with ``text`` and ``sources``) to the gold facts they express."""
    wanted = [fixture.fact(f) for f in (*question.answers, *question.stale)]
    out = []
    for h in hits:
        sources = set(h.sources)
        out.append({f.id for f in wanted if sources & set(f.sources) and said_in(f.object, h.text)})
    return Answered(question, out)


def retrieval(results: list[Answered], k: int = 5) -> dict[str, float | None]:
    """recall@k (partial and strict), MRR, stale-first rate, and recall@k of past and as-of questions.

    * recall@k of a question: the share of its answer facts expressed by one of the top k hits;
      a "multi" question with two answers, one of them found, counts 0.5. Averaged over questions;
    * strict_recall@k: the share of questions whose every answer fact is expressed in the top k
      (the "multi" question above counts 0);
    * MRR: mean over questions of 1 / rank of the first hit expressing an answer fact (0 if none
      in the top k);
    * stale-first rate: among questions that list stale facts, the share whose first hit
      expresses a stale fact and no answer fact;
    * past / as-of recall@k: recall@k (partial) over questions of kind "past" / "as_of".

    A rate over no questions (no past question in the part, none with stale facts) is None.
    """

    def recall_at(r: Answered) -> float:
        return len(found(r) & set(r.question.answers)) / len(r.question.answers)

    def found(r: Answered) -> set[str]:
        return set().union(*r.hits[:k]) if r.hits else set()

    def rr(r: Answered) -> float:
        for rank, facts in enumerate(r.hits[:k], 1):
            if facts & set(r.question.answers):
                return 1 / rank
        return 0.0

    def mean(xs: list[float]) -> float | None:
        return sum(xs) / len(xs) if xs else None

    with_stale = [r for r in results if r.question.stale]
    stale_first = [
        r
        for r in with_stale
        if r.hits and r.hits[0] & set(r.question.stale) and not r.hits[0] & set(r.question.answers)
    ]
    return {
        f"recall@{k}": mean([recall_at(r) for r in results]),
        f"strict_recall@{k}": mean([float(found(r) >= set(r.question.answers)) for r in results]),
        "mrr": mean([rr(r) for r in results]),
        "stale_first_rate": ratio(len(stale_first), len(with_stale)),
        f"past_recall@{k}": mean([recall_at(r) for r in results if r.question.kind == "past"]),
        f"as_of_recall@{k}": mean([recall_at(r) for r in results if r.question.kind == "as_of"]),
        "questions": len(results),
    }
