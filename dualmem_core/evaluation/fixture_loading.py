"""Load and validate the gold-labelled evaluation fixture (``fixtures/eval/``).

``load_fixture`` reads ``conversations.jsonl`` and ``gold.json`` (see ``fixture.py`` for what they
hold), checks every field and cross-reference, and raises ``dualmem_core.errors.InvalidInput``
naming the file, the line or id, and what is wrong.

Separate from ``fixture.py`` (the records themselves) because the checks of the files are most of
the code and are read only when the files change; the field checks both readers use are in
``fixture_checks.py``.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from dualmem_core.errors import InvalidInput
from dualmem_core.vocab import predicates

from .fixture import (
    CONVERSATIONS,
    DEFAULT_FOLDER,
    ENTITY_TYPES,
    GOLD,
    PARTS,
    QUESTION_KINDS,
    ROLES,
    DuplicateCluster,
    Fixture,
    GoldEntity,
    GoldFact,
    Mention,
    Message,
    Question,
    UpdateChain,
)
from .fixture_checks import _check_fields, _date, _datetime, _identified, _need_str, _str_list

_MESSAGE_FIELDS = {"part", "user_id", "session_id", "source_id", "at", "role", "content"}
_GOLD_KEYS = {"facts", "duplicates", "updates", "entities", "questions"}
_FACT_FIELDS = {
    "id",
    "user_id",
    "sources",
    "statement",
    "subject",
    "predicate",
    "object",
    "valid_from",
    "valid_to",
    "current",
}
_FACT_OPTIONAL = {"negated"}
_DUPLICATE_FIELDS = {"user_id", "sources"}
_UPDATE_FIELDS = {"user_id", "chain"}
_ENTITY_FIELDS = {"id", "user_id", "type", "names", "mentions"}
_MENTION_FIELDS = {"source_id", "name"}
_QUESTION_FIELDS = {"id", "part", "user_id", "question", "asked_at", "as_of", "kind", "answers", "stale"}


def load_fixture(folder: str | Path = DEFAULT_FOLDER, part: str | None = None) -> Fixture:
    """Read and validate the fixture in ``folder``; with ``part``, keep only that part's users.

    The whole fixture is validated before filtering, so a part is never loaded from a broken file.
    """
    if part is not None and part not in PARTS:
        raise InvalidInput(f"unknown part {part!r}: use one of {', '.join(PARTS)} or None")
    folder = Path(folder)
    messages = _read_messages(folder / CONVERSATIONS)
    fixture = _read_gold(folder / GOLD, messages)
    fixture.folder = folder
    if part is None:
        return fixture
    keep = set(fixture.users(part))
    return Fixture(
        messages=[m for m in fixture.messages if m.user_id in keep],
        facts=[f for f in fixture.facts if f.user_id in keep],
        duplicates=[d for d in fixture.duplicates if d.user_id in keep],
        updates=[u for u in fixture.updates if u.user_id in keep],
        entities=[e for e in fixture.entities if e.user_id in keep],
        questions=[q for q in fixture.questions if q.user_id in keep],
        folder=folder,
    )


# --- conversations.jsonl ---------------------------------------------------------------------------


def _read_messages(path: Path) -> list[Message]:
    if not path.is_file():
        raise InvalidInput(f"{path}: file not found (the evaluation fixture needs {CONVERSATIONS})")
    messages: list[Message] = []
    by_source: dict[str, int] = {}
    last_at: dict[str, tuple[datetime, int]] = {}
    part_of_user: dict[str, str] = {}
    user_of_session: dict[str, str] = {}
    name = path.name
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            where = f"{name}:{lineno}"
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidInput(f"{where}: not valid JSON ({exc.msg})") from None
            if not isinstance(raw, dict):
                raise InvalidInput(f"{where}: a line must be a JSON object")
            _check_fields(raw, _MESSAGE_FIELDS, set(), where)
            for key in _MESSAGE_FIELDS - {"at"}:
                _need_str(raw[key], where, key)
            if raw["part"] not in PARTS:
                raise InvalidInput(f"{where}: part {raw['part']!r} is not one of {', '.join(PARTS)}")
            if raw["role"] not in ROLES:
                raise InvalidInput(f"{where}: role {raw['role']!r} is not one of {', '.join(ROLES)}")
            at = _datetime(raw["at"], where, "at")
            user, sid = raw["user_id"], raw["source_id"]
            if sid in by_source:
                raise InvalidInput(f"{where}: source_id {sid!r} already used on line {by_source[sid]}")
            by_source[sid] = lineno
            if part_of_user.setdefault(user, raw["part"]) != raw["part"]:
                raise InvalidInput(
                    f"{where}: user {user!r} is in part {raw['part']!r} but earlier lines put it in "
                    f"{part_of_user[user]!r}; a user belongs to one part only"
                )
            if user_of_session.setdefault(raw["session_id"], user) != user:
                raise InvalidInput(
                    f"{where}: session {raw['session_id']!r} belongs to user "
                    f"{user_of_session[raw['session_id']]!r}, not {user!r}"
                )
            if user in last_at and at <= last_at[user][0]:
                raise InvalidInput(
                    f"{where}: time {raw['at']} of user {user!r} is not after line {last_at[user][1]} "
                    f"({last_at[user][0].isoformat()}); times must increase within a user"
                )
            last_at[user] = (at, lineno)
            messages.append(
                Message(raw["part"], user, raw["session_id"], sid, at, raw["role"], raw["content"])
            )
    if not messages:
        raise InvalidInput(f"{name}: no messages")
    return messages


# --- gold.json -------------------------------------------------------------------------------------


def _read_gold(path: Path, messages: list[Message]) -> Fixture:
    if not path.is_file():
        raise InvalidInput(f"{path}: file not found (the evaluation fixture needs {GOLD})")
    name = path.name
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{name}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(raw, dict):
        raise InvalidInput(f"{name}: the top level must be a JSON object")
    _check_fields(raw, _GOLD_KEYS, set(), name)
    for key in _GOLD_KEYS:
        if not isinstance(raw[key], list):
            raise InvalidInput(f"{name}: {key!r} must be a list")

    msg = {m.source_id: m for m in messages}
    users = {m.user_id: m.part for m in messages}
    last_at: dict[str, datetime] = {}
    for m in messages:
        last_at[m.user_id] = m.at

    def source(sid: Any, where: str, user: str, what: str) -> Message:
        if not isinstance(sid, str) or sid not in msg:
            raise InvalidInput(f"{where}: {what} {sid!r} is not a source_id in {CONVERSATIONS}")
        m = msg[sid]
        if m.user_id != user:
            raise InvalidInput(f"{where}: {what} {sid!r} is a message of user {m.user_id!r}, not {user!r}")
        return m

    def user_of(item: dict[str, Any], where: str) -> str:
        user = _need_str(item["user_id"], where, "user_id")
        if user not in users:
            raise InvalidInput(f"{where}: user_id {user!r} has no messages in {CONVERSATIONS}")
        return user

    facts: list[GoldFact] = []
    fact_by_id: dict[str, GoldFact] = {}
    for i, item in enumerate(raw["facts"]):
        fid, where = _identified(item, f"{name} facts[{i}]", f"{name} fact", _FACT_FIELDS, _FACT_OPTIONAL,
                                 fact_by_id)
        user = user_of(item, where)
        sources = _str_list(item["sources"], where, "sources", min_len=1)
        if len(set(sources)) != len(sources):
            raise InvalidInput(f"{where}: a source is listed twice")
        texts = []
        for sid in sources:
            m = source(sid, where, user, "source")
            if m.role != "user":
                raise InvalidInput(
                    f"{where}: source {sid!r} is an assistant message; facts come from the user"
                )
            texts.append(m.content)
        for key in ("statement", "subject", "predicate", "object"):
            _need_str(item[key], where, key)
        pred = item["predicate"]
        if not predicates.is_known(pred) or predicates.canonical(pred) != pred:
            raise InvalidInput(
                f"{where}: predicate {pred!r} is not a canonical name of dualmem_core/vocab/predicates.py"
            )
        obj = item["object"]
        if not any(obj.casefold() in t.casefold() for t in texts):
            raise InvalidInput(f"{where}: object {obj!r} does not appear in the text of any of its sources")
        valid_from = _date(item["valid_from"], where, "valid_from", nullable=True)
        valid_to = _date(item["valid_to"], where, "valid_to", nullable=True)
        if valid_from and valid_to and valid_to < valid_from:
            raise InvalidInput(f"{where}: valid_to {valid_to} is before valid_from {valid_from}")
        current = item["current"]
        if not isinstance(current, bool):
            raise InvalidInput(f"{where}: current must be true or false")
        if current and valid_to is not None:
            raise InvalidInput(f"{where}: a current fact cannot have a valid_to")
        negated = item.get("negated", False)
        if not isinstance(negated, bool):
            raise InvalidInput(f"{where}: negated must be true or false")
        fact = GoldFact(
            fid,
            user,
            tuple(sources),
            item["statement"],
            item["subject"],
            pred,
            obj,
            valid_from,
            valid_to,
            current,
            negated,
        )
        facts.append(fact)
        fact_by_id[fid] = fact

    def fact_ref(fid: Any, where: str, user: str, what: str) -> GoldFact:
        if not isinstance(fid, str) or fid not in fact_by_id:
            raise InvalidInput(f"{where}: {what} {fid!r} is not a fact id")
        if fact_by_id[fid].user_id != user:
            raise InvalidInput(f"{where}: {what} {fid!r} is a fact of user {fact_by_id[fid].user_id!r}")
        return fact_by_id[fid]

    duplicates: list[DuplicateCluster] = []
    for i, item in enumerate(raw["duplicates"]):
        where = f"{name} duplicates[{i}]"
        if not isinstance(item, dict):
            raise InvalidInput(f"{where}: must be an object")
        _check_fields(item, _DUPLICATE_FIELDS, set(), where)
        user = user_of(item, where)
        sources = _str_list(item["sources"], where, "sources", min_len=2)
        for sid in sources:
            source(sid, where, user, "source")
        duplicates.append(DuplicateCluster(user, tuple(sources)))
    clusters = {(d.user_id, frozenset(d.sources)) for d in duplicates}
    expected = {(f.user_id, frozenset(f.sources)) for f in facts if len(f.sources) >= 2}
    for user, srcs in sorted(expected - clusters, key=lambda x: (x[0], sorted(x[1]))):
        raise InvalidInput(
            f"{name} duplicates: no cluster for the sources {sorted(srcs)} of a fact of {user!r}"
        )
    for user, srcs in sorted(clusters - expected, key=lambda x: (x[0], sorted(x[1]))):
        raise InvalidInput(
            f"{name} duplicates: cluster {sorted(srcs)} of {user!r} is not the sources of any fact"
        )

    updates: list[UpdateChain] = []
    for i, item in enumerate(raw["updates"]):
        where = f"{name} updates[{i}]"
        if not isinstance(item, dict):
            raise InvalidInput(f"{where}: must be an object")
        _check_fields(item, _UPDATE_FIELDS, set(), where)
        user = user_of(item, where)
        chain = _str_list(item["chain"], where, "chain", min_len=2)
        if len(set(chain)) != len(chain):
            raise InvalidInput(f"{where}: a fact is listed twice in the chain")
        links = [fact_ref(fid, where, user, "fact") for fid in chain]
        first = links[0]
        for f in links[1:]:
            if (f.subject, f.predicate) != (first.subject, first.predicate):
                raise InvalidInput(
                    f"{where}: {f.id} is ({f.subject}, {f.predicate}) but the chain is about "
                    f"({first.subject}, {first.predicate})"
                )
        if not predicates.is_single_valued(first.predicate):
            raise InvalidInput(
                f"{where}: {first.predicate!r} is multi-valued; chains are for single-valued facts"
            )
        for older, newer in zip(links, links[1:], strict=False):
            if older.current:
                raise InvalidInput(f"{where}: {older.id} is current but a newer fact ({newer.id}) follows it")
            if older.valid_from and newer.valid_from and newer.valid_from < older.valid_from:
                raise InvalidInput(
                    f"{where}: {newer.id} starts before {older.id}; list the chain oldest first"
                )
        updates.append(UpdateChain(user, tuple(chain)))

    entities: list[GoldEntity] = []
    entity_ids: set[str] = set()
    for i, item in enumerate(raw["entities"]):
        eid, where = _identified(item, f"{name} entities[{i}]", f"{name} entity", _ENTITY_FIELDS, set(),
                                 entity_ids)
        entity_ids.add(eid)
        user = user_of(item, where)
        if item["type"] not in ENTITY_TYPES:
            raise InvalidInput(f"{where}: type {item['type']!r} is not one of {', '.join(ENTITY_TYPES)}")
        names = _str_list(item["names"], where, "names", min_len=1)
        mentions = []
        if not isinstance(item["mentions"], list) or not item["mentions"]:
            raise InvalidInput(f"{where}: mentions must be a non-empty list")
        for j, mention in enumerate(item["mentions"]):
            mwhere = f"{where} mentions[{j}]"
            if not isinstance(mention, dict):
                raise InvalidInput(f"{mwhere}: must be an object")
            _check_fields(mention, _MENTION_FIELDS, set(), mwhere)
            m = source(mention["source_id"], mwhere, user, "source_id")
            mname = _need_str(mention["name"], mwhere, "name")
            if mname not in names:
                raise InvalidInput(f"{mwhere}: name {mname!r} is not one of the entity's names {names}")
            if mname.casefold() not in m.content.casefold():
                raise InvalidInput(f"{mwhere}: {mname!r} does not appear in message {m.source_id!r}")
            mentions.append(Mention(m.source_id, mname))
        entities.append(GoldEntity(eid, user, item["type"], tuple(names), tuple(mentions)))

    questions: list[Question] = []
    question_ids: set[str] = set()
    for i, item in enumerate(raw["questions"]):
        qid, where = _identified(item, f"{name} questions[{i}]", f"{name} question", _QUESTION_FIELDS, set(),
                                 question_ids)
        question_ids.add(qid)
        user = user_of(item, where)
        if item["part"] != users[user]:
            raise InvalidInput(f"{where}: part {item['part']!r} but user {user!r} is in part {users[user]!r}")
        _need_str(item["question"], where, "question")
        asked_at = _datetime(item["asked_at"], where, "asked_at")
        if asked_at <= last_at[user]:
            raise InvalidInput(
                f"{where}: asked_at {item['asked_at']} is not after the last message of {user!r} "
                f"({last_at[user].isoformat()})"
            )
        kind = item["kind"]
        if kind not in QUESTION_KINDS:
            raise InvalidInput(f"{where}: kind {kind!r} is not one of {', '.join(QUESTION_KINDS)}")
        as_of = _date(item["as_of"], where, "as_of", nullable=True)
        if kind == "as_of" and as_of is None:
            raise InvalidInput(f"{where}: an as_of question needs an as_of date")
        if kind != "as_of" and as_of is not None:
            raise InvalidInput(f"{where}: only as_of questions carry an as_of date")
        answers = _str_list(item["answers"], where, "answers", min_len=2 if kind == "multi" else 1)
        stale = _str_list(item["stale"], where, "stale", min_len=0)
        for fid in answers:
            fact_ref(fid, where, user, "answer")
        for fid in stale:
            fact_ref(fid, where, user, "stale fact")
        if set(answers) & set(stale):
            raise InvalidInput(
                f"{where}: {sorted(set(answers) & set(stale))} listed as both answer and stale"
            )
        questions.append(
            Question(
                qid, item["part"], user, item["question"], asked_at, as_of, kind, tuple(answers), tuple(stale)
            )
        )

    return Fixture(messages, facts, duplicates, updates, entities, questions)
