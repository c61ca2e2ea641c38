"""The Writer: what an agent calls inline, on every turn.

``remember`` stores each message first as an episode (so nothing is lost to extraction), makes
it recallable as an observation, adds the facts an extractor finds, links them to the people
and places they mention and to their nearest neighbours (``batch.py``), and writes it all in
one transaction. ``recall`` is hybrid and explainable (see ``recall.py`` and ``scoring.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import cast

from ..errors import InvalidInput, NotFound, SourceIdTaken
from ..providers import Embedder, HashingEmbedder
from ..providers.llm import LLM
from ..settings import EmbedQueueSettings
from ..store import (
    Edge,
    EdgeType,
    Episode,
    Memory,
    MemoryVersion,
    SearchFilter,
    SearchHit,
    Store,
    WriteBatch,
)
from ..store.forgetting import ForgetReceipt
from ..store.query import query_terms
from ..store.snapshot import scrub_snapshots, snapshot_dirs
from ..store.validate import check_k, check_stored_user_id, check_text, check_user_id
from ..timeutil import EARLIEST, FAR_FUTURE, require_aware, utcnow
from ..vocab import predicates
from .batch import _new_id, drop_exact_duplicates, embed_and_link, link_entities
from .embed_queue import queue_for
from .extractors import default_extractor
from .extractors.base import Extractor
from .facts import Fact, Message, mentioned_entities
from .inputs import ASSISTANT_ROLES, InputMessage, to_messages
from .intent import read_question
from .profile import MIN_OCCASIONS, Profile, current_facts, lasting_facts
from .recall import recall as hybrid_recall
from .recall import sources_of
from .results import History, Hit, ProfileEntry, RememberResult, VersionView
from .search_text import RecentTurns
from .self_names import about_user, self_names
from .sessions import Discourse, SessionContexts
from .upcoming import Intention
from .upcoming import upcoming as upcoming_intentions

# A copy the Editor folded into its canonical memory ("duplicate") is recalled through that one.
RECALLED_STATUSES = ("active", "superseded")
_SOURCE_RETRIES = 2  # remembers retried after another stored one of their source ids first


@dataclass(slots=True)
class WriterConfig:
    similar_threshold: float = 0.75  # cosine above which a new memory links SIMILAR_TO
    similar_links: int = 3  # at most this many SIMILAR_TO links per new memory
    observation_confidence: float = 0.6  # what was said is certain; what it means less so
    # An assistant's reply is context, not the user's testimony: it echoes names ("Hi Lou!") and
    # guesses, so it ranks below what the user said when both match a question.
    assistant_observation_confidence: float = 0.2
    extract_roles: tuple[str, ...] = ("user",)  # assistants' words are stored, not mined


class Writer:
    """Remember, recall, forget and explain one store's memories, scoped by user."""

    def __init__(
        self,
        store: Store,
        *,
        embedder: Embedder | None = None,
        extractor: Extractor | None = None,
        llm: LLM | None = None,
        config: WriterConfig | None = None,
        sync: bool | None = None,
        embed_queue: EmbedQueueSettings | None = None,
    ):
        """``extractor`` defaults to the rule extractor, or with ``llm`` to the LLM extractor
        (one call per ``remember``) that falls back to the rules on a bad reply. A costly embedder
        (``cheap = False``) embeds in the background, in batches (``embed_queue.queue_for``:
        ``sync``, ``embed_queue`` settings, ``DUALMEM_EMBED_*``)."""
        self.store = store
        self.embedder = embedder or HashingEmbedder(store.dimension)
        if self.embedder.dimension != store.dimension:
            raise InvalidInput(
                f"the embedder makes {self.embedder.dimension}-dimensional vectors but "
                f"the store holds {store.dimension}; use a matching embedder"
            )
        self.extractor = extractor if extractor is not None else default_extractor(llm)
        self.config = config or WriterConfig()
        self.contexts = SessionContexts()  # per (user, session): what earlier messages left for the next
        self.embed_queue = queue_for(store, self.embedder, sync, embed_queue, links=self.config.similar_links,
                                     threshold=self.config.similar_threshold)

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every queued vector is written with its links; False after ``timeout`` s."""
        return True if self.embed_queue is None else self.embed_queue.flush(timeout)

    def close(self) -> None:
        """Flush the embedding queue and stop its thread (the store stays open); so does exit."""
        if self.embed_queue is not None:
            self.embed_queue.close()

    # -- write ----------------------------------------------------------------------------

    def remember(
        self,
        content: str | Sequence[dict],
        *,
        user_id: str,
        session_id: str | None = None,
        agent_id: str | None = None,
        at: datetime | None = None,
        source_id: str | None = None,
        speaker: str | None = None,
        role: str | None = None,
    ) -> RememberResult:
        """Store one message (a string) or a list of ``{"role", "content", ...}`` messages."""
        check_user_id(user_id)
        messages = to_messages(content, at=at, source_id=source_id, speaker=speaker, role=role)
        for _ in range(_SOURCE_RETRIES):
            try:
                return self._remember(user_id, messages, session_id, agent_id)
            except SourceIdTaken:
                # Another call stored one of these source ids after ours looked: the store's
                # unique key refused this whole write. Again, the look-up now sees it: the same
                # text is ``already_stored``, a different one is refused, the rest is written.
                continue
        return self._remember(user_id, messages, session_id, agent_id)

    def _remember(self, user_id: str, messages: list[InputMessage], session_id: str | None,
                  agent_id: str | None) -> RememberResult:
        result, batch = RememberResult(), WriteBatch()
        messages = self._drop_stored(user_id, messages, result)
        if not messages:
            return result
        pending: list[tuple[Memory, MemoryVersion, list[tuple[str, str]]]] = []
        context = self.contexts.get(user_id, session_id)
        # A session's earlier turns go into each message's search text (``search_text.py``); a
        # message without a session is read with the earlier messages of its own call.
        recent = context.recent if context is not None else RecentTurns()
        for message, facts in zip(messages, self._extract(messages, result, context), strict=True):
            episode = Episode(
                id=_new_id("ep"),
                user_id=user_id,
                text=message.text,
                observed_at=message.at,
                source_id=message.source_id,
                speaker=message.speaker,
                role=message.role,
                agent_id=agent_id,
                session_id=session_id,
            )
            batch.episodes.append(episode)
            result.episode_ids.append(episode.id)
            result.facts += facts
            per_fact = [mentioned_entities(f) for f in facts]
            # A speaker that is only the role ("user") names nobody: it would match every question.
            named = message.speaker if message.speaker != message.role else None
            # The agent's own replies ("Congratulations, Lou!") are searched by their words alone:
            # with the user's turns around them they outranked what the user said. They still
            # give the user's next message its context (the question it answers).
            search = (None if message.role in ASSISTANT_ROLES
                      else recent.search_text(message.text, named, message.at))
            recent.heard(message.text)
            candidates = [(self._observation(user_id, message, agent_id, session_id, search),
                           sum(per_fact, []))]
            candidates += [
                (self._fact(user_id, message, f, agent_id, session_id), entities)
                for f, entities in zip(facts, per_fact, strict=True)
            ]
            for (memory, version), entities in candidates:
                pending.append((memory, version, entities))
                batch.edges.append(
                    Edge(id=_new_id("edge"), user_id=user_id, type=EdgeType.FROM, src_id=memory.id,
                         dst_id=episode.id)
                )
        with self.store.reading():  # the three lookups share one read transaction (Neo4j)
            drop_exact_duplicates(self.store, user_id, pending, batch, result)
            if self.embed_queue is None:
                embed_and_link(self.store, self.embedder, user_id, pending, batch,
                               self.config.similar_links, self.config.similar_threshold)
            link_entities(self.store, user_id, pending, batch)
        if self.embed_queue is None:
            self.store.write(batch)
        else:  # stored now; their vectors and SIMILAR_TO links come later
            with self.embed_queue.write_lock:
                self.store.write(batch)
            self.embed_queue.put(user_id, [v for _, v, _ in pending])
        return result

    def _drop_stored(self, user_id: str, messages: list[InputMessage],
                     result: RememberResult) -> list[InputMessage]:
        """A source id names one message of a user: saying it again with the same text stores
        nothing (``result.already_stored`` lists it), so retries and re-imports are safe; a
        different text under it is refused, since recall and forget would mix two messages."""
        ids = [m.source_id for m in messages if m.source_id is not None]
        if not ids:
            return messages
        known = {ep.source_id: ep.text for ep in self.store.episodes_by_source(user_id, ids)}
        fresh = []
        for message in messages:
            stored = known.get(message.source_id) if message.source_id is not None else None
            if stored is None:
                if message.source_id is not None:
                    known[message.source_id] = message.text  # also a repeat within this call
                fresh.append(message)
            elif stored == message.text:
                assert message.source_id is not None  # ``stored`` was found under it
                result.already_stored.append(message.source_id)
            else:
                raise InvalidInput(
                    f"source_id {message.source_id!r} already names a different message of user "
                    f"{user_id!r}; give the new message its own source_id, or forget the old one "
                    "first (forget(source_ids=[...])) to store this text in its place"
                )
        return fresh

    def _extract(self, messages: list[InputMessage], result: RememberResult,
                 context: Discourse | None = None) -> list[list[Fact]]:
        """Facts per message from one ``extract_batch`` call; an extractor that reports (the LLM
        one) says in ``result.extractor`` whether it answered or fell back to the rules, and why.
        A context-reading extractor also hears the assistant's turns (their questions) and the session's
        earlier messages (``sessions.py``); it is not asked for facts from them."""
        roles = self.config.extract_roles
        reads = self.extractor.reads_context
        mined = [i for i, m in enumerate(messages) if m.role in roles or (reads and m.role == "assistant")]
        inputs = [
            Message(messages[i].text, messages[i].at, messages[i].speaker, messages[i].role) for i in mined
        ]
        extraction = self.extractor.extract_batch(inputs, context)
        found = extraction.facts
        if inputs and extraction.report is not None:
            result.extractor = extraction.report
        facts: list[list[Fact]] = [[] for _ in messages]
        for index, extracted in zip(mined, found, strict=True):
            facts[index] = extracted if messages[index].role in roles else []
        return facts

    def _observation(
        self, user_id: str, message: InputMessage, agent_id: str | None, session_id: str | None,
        search_text: str | None = None,
    ) -> tuple[Memory, MemoryVersion]:
        memory = Memory(id=_new_id("mem"), user_id=user_id, kind="observation", agent_id=agent_id,
                        session_id=session_id)
        return memory, MemoryVersion(
            id=_new_id("ver"),
            memory_id=memory.id,
            user_id=user_id,
            text=message.text,
            search_text=search_text,
            valid_from=message.at,
            confidence=(
                self.config.observation_confidence
                if message.role not in ASSISTANT_ROLES
                else self.config.assistant_observation_confidence
            ),
        )

    @staticmethod
    def _fact(
        user_id: str, message: InputMessage, fact: Fact, agent_id: str | None, session_id: str | None
    ) -> tuple[Memory, MemoryVersion]:
        memory = Memory(id=_new_id("mem"), user_id=user_id, kind="fact", agent_id=agent_id,
                        session_id=session_id)
        valid_from = fact.valid_from or message.at
        valid_to = fact.valid_to or FAR_FUTURE
        if valid_to <= valid_from:  # "I used to live in X": it has ended; when it began is unknown
            valid_from = EARLIEST
        return memory, MemoryVersion(
            id=_new_id("ver"),
            memory_id=memory.id,
            user_id=user_id,
            text=fact.text,
            valid_from=valid_from,
            valid_to=valid_to,
            subject=fact.subject,
            predicate=predicates.canonical(fact.predicate),
            object=fact.object,
            confidence=min(max(fact.confidence, 0.0), 1.0),
            negated=fact.negated,
        )

    # -- read -----------------------------------------------------------------------------

    def recall(
        self,
        query: str,
        *,
        user_id: str,
        k: int = 5,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        record_access: bool = True,
    ) -> list[Hit]:
        """The k memories that best answer ``query``, as of a valid time and a belief time.

        A question that names the user ("Where does Priya live?") is asked about "the user",
        whom facts about the speaker are stored under. ``record_access=False`` leaves the access
        counts alone (a measurement, not a use).
        """
        check_user_id(user_id)
        check_text(query, "the query", empty="ask for something in words, e.g. 'where does the user live?'")
        check_k(k)
        flt = SearchFilter(
            user_id,
            agent_id=agent_id,
            session_id=session_id,
            valid_at=None if as_of is None else require_aware(as_of, "as_of"),
            known_at=None if known_at is None else require_aware(known_at, "known_at"),
            statuses=RECALLED_STATUSES,
        )
        with self.store.reading():  # the name lookup shares recall's read transaction
            # A question naming the user is embedded as one about "the user" and searched without
            # the name: every memory is about them, so the name only matches replies that greet
            # them ("Hi Lou!") and "user" would match every fact alike.
            names = self_names(self.store, user_id)
            asked, words = about_user(query, names), about_user(query, names, as_="")
            if not query_terms(words):
                words = asked
            intent = read_question(query, user_names=names)
            hits = hybrid_recall(self.store, self.embedder.embed([asked])[0], words, flt, k, intent)
        if record_access:
            self.store.record_access(user_id, [h.memory_id for h in hits])
        return hits

    def history(self, memory_id: str, *, user_id: str | None = None) -> History:
        """Every version of a memory, oldest belief first, and what superseded it."""
        user_id = check_user_id(user_id) if user_id is not None else self.store.memory_owner(memory_id)
        versions = self.store.get_versions(user_id, [memory_id], all_versions=True)
        if not versions and self.store.memory_owner(memory_id) != user_id:  # NotFound if unknown
            raise NotFound(f"no memory {memory_id!r} for user {user_id!r}")
        edges = self.store.get_edges(
            user_id, node_ids=[memory_id], types=[EdgeType.SUPERSEDES, EdgeType.FROM]
        )
        sources = [
            ep.source_id or ep.id
            for ep in self.store.get_episodes(user_id, [e.dst_id for e in edges if e.type == EdgeType.FROM])
        ]
        supersedes = [e for e in edges if e.type == EdgeType.SUPERSEDES]
        return History(
            memory_id=memory_id,
            user_id=user_id,
            versions=[
                VersionView(  # a stored version has its tx_from (the store's clock stood in for None)
                    v.id, v.text, v.status, v.valid_from, v.valid_to, cast(datetime, v.tx_from), v.tx_to,
                    v.created_by,
                )
                for v in versions
            ],
            superseded_by=[e.src_id for e in supersedes if e.dst_id == memory_id],
            supersedes=[e.dst_id for e in supersedes if e.src_id == memory_id],
            sources=sorted(sources),
        )

    def profile(self, user_id: str, *, subject: str = "user") -> dict[str, ProfileEntry]:
        """The current value of each single-valued fact about ``subject`` (lives in, works at...)."""
        check_user_id(user_id)
        return self._identity(user_id, subject, current_facts(self.store, user_id))

    def _identity(self, user_id: str, subject: str, hits: list[SearchHit]) -> dict[str, ProfileEntry]:
        profile: dict[str, ProfileEntry] = {}
        for hit in hits:  # newest valid_from first, so the first one per predicate wins
            version = hit.version
            assert version.predicate is not None  # list_facts returns only versions with a predicate
            if (version.subject or "").casefold() != subject.casefold() or version.predicate in profile:
                continue
            if predicates.is_single_valued(version.predicate):
                profile[version.predicate] = ProfileEntry(
                    version.predicate,
                    version.object or "",
                    version.text,
                    hit.memory.id,
                    version.valid_from,
                    [],
                )
        sources = sources_of(self.store, user_id, [e.memory_id for e in profile.values()])
        for entry in profile.values():
            entry.sources = sources.get(entry.memory_id, [])
        return profile

    def layered_profile(self, user_id: str, *, subject: str = "user", min_occasions: int = MIN_OCCASIONS,
                        topic_evidence: bool = False) -> Profile:
        """Identity (``profile``) and the lasting preferences and traits: current multi-valued
        facts told on at least ``min_occasions`` sessions or days (with ``topic_evidence``, an
        Editor topic's turns naming the value count too), each with its evidence (``profile.py``)."""
        if min_occasions < 1:
            raise InvalidInput("min_occasions must be at least 1")
        check_user_id(user_id)
        hits = current_facts(self.store, user_id)  # read once: both layers come from it
        return Profile(self._identity(user_id, subject, hits),
                       lasting_facts(self.store, user_id, hits, subject, min_occasions, topic_evidence))

    def upcoming(self, user_id: str, now: datetime | None = None,
                 within: timedelta = timedelta(days=7)) -> list[Intention]:
        """The user's open plans coming due by ``now + within`` (the Editor's intentions stage
        makes them; ``upcoming.py``), soonest first."""
        check_user_id(user_id)
        if within < timedelta(0):
            raise InvalidInput("within must not be negative")
        now = utcnow() if now is None else require_aware(now, "now")
        return upcoming_intentions(self.store, user_id, now, within)

    # -- delete ---------------------------------------------------------------------------

    def forget(self, *, user_id: str, source_ids: Sequence[str] | None = None,
               memory_id: str | None = None, everything: bool = False) -> ForgetReceipt | dict[str, int]:
        """Delete for real: by the caller's source ids, one memory, or (``everything``) the user.

        The store deletes the records and their index entries; the provider caches behind the
        embedder and the LLM drop every entry derived from the forgotten texts; the user's graph
        snapshots under ``DUALMEM_SNAPSHOT_DIR`` lose the forgotten records (store/snapshot.py).
        """
        check_stored_user_id(user_id)  # data stored under an id the rule now refuses stays deletable
        if not everything and source_ids is None and memory_id is None:
            raise InvalidInput("forget() needs source_ids=, memory_id= or everything=True")
        self.contexts.drop(user_id)  # a forgotten message must not live on as a pronoun's referent
        self.flush()  # a queued text must not be embedded (and cached) after its cache entry goes
        caches = [c for c in (getattr(self.embedder, "cache", None), *self.extractor.caches())
                  if c is not None]
        # The texts are also what later messages' search texts may hold (``search_text.py``).
        texts = [] if everything and not caches else self._texts_to_forget(user_id, source_ids, memory_id,
                                                                            everything)
        receipt: ForgetReceipt | dict[str, int]
        if everything:
            receipt = self.store.delete_user(user_id)
        else:
            receipt = self.store.forget(user_id, source_ids=list(source_ids or ()),
                                        memory_ids=[memory_id] if memory_id else [])
        for cache in dict.fromkeys(caches):
            for text in texts:
                cache.delete_matching(text)
        deleted: set[str] = receipt.deleted_ids if isinstance(receipt, ForgetReceipt) else set()
        scrub_snapshots(snapshot_dirs(), user_id, deleted, everything=everything, said=texts)
        return receipt

    def _texts_to_forget(self, user_id: str, source_ids: Sequence[str] | None, memory_id: str | None,
                         everything: bool) -> list[str]:
        """Every text a forget may remove (a superset: shared memories are re-embedded later)."""
        if everything:
            graph = self.store.export_graph(user_id)
            return list({*(e.text for e in graph.episodes), *(v.text for v in graph.versions)})
        episodes = self.store.episodes_by_source(user_id, list(source_ids or ()))
        edges = self.store.get_edges(user_id, node_ids=[e.id for e in episodes], types=[EdgeType.FROM])
        memory_ids = {e.src_id for e in edges} | ({memory_id} if memory_id else set())
        versions = self.store.get_versions(user_id, sorted(memory_ids), all_versions=True)
        return list({*(e.text for e in episodes), *(v.text for v in versions)})
