"""Stage 3, resolve entities: names that refer to one person, place or thing are merged.

Evidence, cheapest first:

1. the same normalised name or alias, with compatible types ("thing" fits any type);
2. a memory that says so: a ``name`` or ``nickname`` fact ("Bob's name is Robert Smith") makes
   its subject and object one entity; so does an all-capitals name that is the initials of exactly
   one organisation or place ("WHOI");
3. everything else that looks alike (a common nickname of the same first name, a close spelling,
   a first name alone against a full name) is the grey band: the LLM decides when one is
   configured, and without one the names stay apart, because a wrong merge mixes up two
   people's facts while a missed one only costs recall.

Cannot-link constraints stop merges the evidence does not support: two names in one memory are
two entities (unless that memory is the alias statement), and a remembered ``DISTINCT_FROM``
(an earlier "different" verdict) is never merged. Clusters are built with union-find under
those constraints; the oldest entity is canonical. A merge is a ``MERGED_INTO`` edge plus
``MENTIONS`` edges from the merged entity's memories to the canonical one, so recall's graph
expansion sees one entity and a rollback can take it all back.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations

from ..store import EdgeType
from .config import EditorConfig
from .decisions import Decision, StageOp, StageResult, edge
from .judge import Judge
from .mention_links import link_mentions
from .stints import initials
from .view import SELF, GraphView, follow, object_key

STAGE = "entities"
ALIAS_PREDICATES = ("name", "nickname")
# Common English hypocorisms: the grey band's candidates, never merged on this alone.
_NICKNAMES = {
    "bob": "robert",
    "rob": "robert",
    "bobby": "robert",
    "bill": "william",
    "will": "william",
    "liz": "elizabeth",
    "beth": "elizabeth",
    "lizzie": "elizabeth",
    "kate": "katherine",
    "katie": "katherine",
    "jim": "james",
    "jimmy": "james",
    "mike": "michael",
    "dave": "david",
    "tom": "thomas",
    "tony": "anthony",
    "alex": "alexander",
    "sam": "samuel",
    "ben": "benjamin",
    "chris": "christopher",
    "dan": "daniel",
    "danny": "daniel",
    "matt": "matthew",
    "nick": "nicholas",
    "jen": "jennifer",
    "jenny": "jennifer",
    "sue": "susan",
    "meg": "margaret",
    "maggie": "margaret",
    "peggy": "margaret",
    "andy": "andrew",
    "joe": "joseph",
    "steve": "stephen",
    "rick": "richard",
    "dick": "richard",
    "ed": "edward",
    "ted": "edward",
    "abby": "abigail",
    "becky": "rebecca",
}


def resolve_entities(
    view: GraphView, config: EditorConfig | None = None, judge: Judge | None = None
) -> StageResult:
    config = config or EditorConfig()
    result = StageResult(STAGE)
    merged = {e.src_id for e in view.open_edges(EdgeType.MERGED_INTO)}
    live = {i: e for i, e in view.entities.items() if i not in merged}
    keys = {i: _keys(e.name, e.aliases) for i, e in live.items()}
    cannot = _cannot_link(view, live)
    parent: dict[str, str] = {}
    members: dict[str, set[str]] = {i: {i} for i in live}

    def find(i: str) -> str:
        while parent.get(i, i) != i:
            i = parent[i]
        return i

    def merge(a: str, b: str) -> bool:
        ra, rb = find(a), find(b)
        if ra == rb:
            return True
        if any(frozenset((x, y)) in cannot for x in members[ra] for y in members[rb]):
            return False
        older, newer = sorted((ra, rb), key=lambda i: (live[i].created_at, i))
        parent[newer] = older
        members[older] |= members.pop(newer)
        return True

    by_key: dict[str, list[str]] = defaultdict(list)
    for i, ks in keys.items():
        for k in ks:
            by_key[k].append(i)
    touched = {e for m in view.new_memory_ids() for e in view.mentions.get(m, ()) if e in live}
    evidence: dict[str, tuple[str, str]] = {}  # entity -> (rule, the name it matched)
    for k, ids in sorted(by_key.items()):
        for a, b in combinations(sorted(ids), 2):
            if (a in touched or b in touched) and _types_fit(live[a].type, live[b].type) and merge(a, b):
                evidence.setdefault(max(a, b, key=lambda i: (live[i].created_at, i)), ("same name", k))
    for a, b, text in _alias_statements(view, by_key):
        if a in live and b in live and merge(a, b):
            evidence.setdefault(max(a, b, key=lambda i: (live[i].created_at, i)), ("named as", text))
    for a, b in _acronyms(live, touched):
        if merge(a, b):
            evidence.setdefault(max(a, b, key=lambda i: (live[i].created_at, i)), ("initials", live[a].name))
    grey = _grey_pairs(live, keys, touched, find, config.name_similarity)
    if grey:
        described = [(_describe(view, a), _describe(view, b)) for a, b, _ in grey]
        verdicts = (judge or Judge(None)).same(STAGE, "Entity", described)
        for (a, b, why), verdict in zip(grey, verdicts, strict=True):
            if verdict and merge(a, b):
                evidence.setdefault(max(a, b, key=lambda i: (live[i].created_at, i)), ("llm: same", why))
            elif verdict is False:
                result.decisions.append(
                    Decision(
                        "distinct",
                        a,
                        "llm: different",
                        b,
                        {"looked alike": why},
                        [edge(view, EdgeType.DISTINCT_FROM, a, b)],
                    )
                )
            else:
                result.decisions.append(
                    Decision("kept_apart", a, "grey band, no model", b, {"looked alike": why})
                )
    result.decisions += _follow_merges(view, merged)
    result.decisions += link_mentions(view, live, find)
    for i in sorted(parent):
        root = find(i)
        if root == i:
            continue
        rule, matched = evidence.get(i, ("same cluster", ""))
        ops: list[StageOp] = [edge(view, EdgeType.MERGED_INTO, i, root, rule=rule)]
        already = set(view.mentioned_by.get(root, ()))
        ops += [
            edge(view, EdgeType.MENTIONS, m, root)
            for m in sorted(set(view.mentioned_by.get(i, ())) - already)
        ]
        result.decisions.append(
            Decision(
                "merge",
                i,
                rule,
                root,
                {"name": live[i].name, "into": live[root].name, "matched": matched},
                ops,
            )
        )
    return result


def _follow_merges(view: GraphView, merged: set[str]) -> list[Decision]:
    """New memories that name an entity merged by an earlier run also mention its canonical one."""
    into = {e.src_id: e.dst_id for e in view.open_edges(EdgeType.MERGED_INTO)}
    out = []
    for memory_id in view.new_memory_ids():
        mentioned = set(view.mentions.get(memory_id, ()))
        for entity_id in sorted(mentioned & merged):
            root = follow(into, entity_id)
            if root not in mentioned:
                mentioned.add(root)
                out.append(
                    Decision(
                        "mention",
                        memory_id,
                        "merged earlier",
                        root,
                        {"via": view.entities[entity_id].name},
                        [edge(view, EdgeType.MENTIONS, memory_id, root)],
                    )
                )
    return out


def _keys(name: str, aliases: tuple[str, ...]) -> set[str]:
    return {object_key(n) for n in (name, *aliases) if n.strip()}


def _types_fit(a: str, b: str) -> bool:
    return a == b or "thing" in (a, b)


def _cannot_link(view: GraphView, live: dict) -> set[frozenset[str]]:
    """Pairs that must stay apart: named together in one memory (unless its message is the one
    saying a name is someone's name), or judged different before."""
    pairs = {frozenset((e.src_id, e.dst_id)) for e in view.open_edges(EdgeType.DISTINCT_FROM)}
    naming = {  # messages that say a name is someone's name: they name one person twice
        ep
        for m, v in view.current.items()
        if v.predicate in ALIAS_PREDICATES and not v.negated
        for ep in view.sources.get(m, ())
    }
    for memory_id, entity_ids in view.mentions.items():
        v = view.current.get(memory_id)
        if (v is not None and v.predicate in ALIAS_PREDICATES) or naming.intersection(
            view.sources.get(memory_id, ())
        ):
            continue  # "my friend Robert, everyone calls him Bob", and the facts taken from it
        ids = sorted(set(entity_ids) & live.keys())
        if 1 < len(ids) <= 12:
            pairs |= {frozenset(p) for p in combinations(ids, 2)}
    return pairs


def _alias_statements(view: GraphView, by_key: dict[str, list[str]]):
    """(entity, entity, text) for each fact saying one name is another's name or nickname.

    The user's own names ("Jonathan here, but call me Jon") are all names of one person: the
    facts say so about "user", whom no entity stands for, so their objects are joined."""
    own: list[tuple[str, str]] = []  # (name key, the statement) of the user's names
    for memory_id, v in view.current.items():
        if v.predicate in ALIAS_PREDICATES and v.status == "active" and not v.negated and v.object:
            if view.fact_subject(memory_id) == SELF:
                own.append((object_key(v.object), v.text))
            for a in by_key.get(object_key(v.subject), ()):
                for b in by_key.get(object_key(v.object), ()):
                    if a != b:
                        yield a, b, v.text
    for (first, _), (name, text) in combinations(own, 2):
        for a in by_key.get(first, ()):
            for b in by_key.get(name, ()):
                if a != b:
                    yield a, b, text


def _acronyms(live: dict, touched: set[str]):
    """(acronym entity, named entity) when an all-capitals name is the initials of exactly one
    other organisation's or place's name ("WHOI", "Woods Hole Oceanographic Institution").
    People are left out: "JD" may be anyone's initials."""
    spelled: dict[str, list[str]] = defaultdict(list)
    for i, e in live.items():
        if e.type != "person" and len(short := initials(e.name)) >= 2:
            spelled[short].append(i)
    for i, e in live.items():
        name = e.name.strip()
        named = spelled.get(name, []) if name.isupper() and name.isalpha() and e.type != "person" else []
        if len(named) == 1 and {i, named[0]} & touched and _types_fit(e.type, live[named[0]].type):
            yield i, named[0]


def _grey_pairs(
    live: dict, keys: dict[str, set[str]], touched: set[str], find, similarity: float
) -> list[tuple[str, str, str]]:
    """Pairs that look alike but are not proven: same nickname root, close spelling, or a first
    name against a full name. Only pairs with a touched entity, so cost follows what is new."""
    index: dict[str, list[str]] = defaultdict(list)
    for i, ks in keys.items():
        for k in ks:
            first = k.split()[0] if k.split() else k
            index[_NICKNAMES.get(first, first)].append(i)
            index["#" + k[:3]].append(i)
    pairs = {}
    for a in sorted(touched):
        for root in {(_NICKNAMES.get(k.split()[0], k.split()[0]) if k.split() else k) for k in keys[a]} | {
            "#" + k[:3] for k in keys[a]
        }:
            for b in index.get(root, ()):
                if b == a or find(a) == find(b) or not _types_fit(live[a].type, live[b].type):
                    continue
                why = _looks_alike(keys[a], keys[b], similarity)
                if why:
                    pairs[tuple(sorted((a, b)))] = why
    return [(a, b, why) for (a, b), why in sorted(pairs.items())]


def _looks_alike(a: set[str], b: set[str], similarity: float) -> str | None:
    for x in a:
        for y in b:
            fx, fy = x.split(), y.split()
            if not fx or not fy:
                continue
            same_first = _NICKNAMES.get(fx[0], fx[0]) == _NICKNAMES.get(fy[0], fy[0])
            if same_first and (len(fx) == 1 or len(fy) == 1 or fx[1:] == fy[1:]):
                return f"{x} ~ {y}"
            if _trigram_similarity(x, y) >= similarity:
                return f"{x} ≈ {y}"
    return None


def _trigram_similarity(a: str, b: str) -> float:
    ta = {a[i : i + 3] for i in range(len(a) - 2)} or {a}
    tb = {b[i : i + 3] for i in range(len(b) - 2)} or {b}
    return len(ta & tb) / len(ta | tb)


def _describe(view: GraphView, entity_id: str) -> str:
    e = view.entities[entity_id]
    said = [view.current[m].text for m in view.mentioned_by.get(entity_id, ())[:3] if m in view.current]
    names = ", ".join(dict.fromkeys((e.name, *e.aliases)))
    return f"{names} ({e.type}); mentioned in: " + " | ".join(said)
