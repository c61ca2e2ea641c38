"""The per-session state the Writer keeps between one message and the next.

``Discourse`` holds what one session's earlier messages leave for the next: the turns search
indexes a message with (``recent``, read by the Writer itself), and the referents, names and open
question the rule extractor reads pronouns and short answers by (``extractors/rules/discourse.py``
reads and updates them). ``SessionContexts`` is the Writer's bounded cache of these, keyed by
(user, session). They live here, apart from the rule reading, because the Writer owns and hands
them to any extractor while it must not import the rule extractor.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from .search_text import RecentTurns

MAX_NAMES = 2000  # names known per user


@dataclass(frozen=True, slots=True)
class Referent:
    name: str  # as facts name the subject: "Tom", "user's sister"
    gender: str = ""  # "m", "f" or "" when nothing said it


@dataclass(frozen=True, slots=True)
class Question:
    """An assistant's question whose short answer can be read: what it asks, and about whom."""

    kind: str  # live | from | work_at | job | study | age | name | partner | pet_name | have_pet | favourite
    about: str = ""  # a relation word ("brother") when it asks about someone else, "" for the user
    topic: str = ""  # the favourite's category ("film"), the partner's relation word ("wife")


@dataclass(slots=True)
class Discourse:
    """The referents and the open question one session's earlier messages left."""

    people: tuple[Referent, ...] = ()  # persons the last message naming anyone named or referred to
    pets: tuple[str, ...] = ()  # unnamed pets ("puppy") of the last message that spoke of pets
    place: str | None = None  # a home named last ("I'm in Newcastle now"), for "moved here"
    work_talk: bool = False  # the previous user message spoke of work
    moved: bool = False  # the previous user message spoke of a move
    question: Question | None = None  # the assistant's question the next user message may answer
    quiet: int = 0  # user messages since the last one that named a person or pet
    asked_about: str = ""  # the one relative of the user the assistant's last turn spoke of ("mum")
    pet_names: set[str] = field(default_factory=set)  # named pets: "Rufus ate my sandwich" names no person
    # Names seen in capitals, casefolded -> as written ("sarah" -> "Sarah"), for messages typed in
    # lower case (``extractors/rules/truecase.py``); one dict shared by the user's sessions.
    names: dict[str, str] = field(default_factory=dict)
    recent: RecentTurns = field(default_factory=RecentTurns)  # what search indexes with the next message
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def learn(self, names: dict[str, str]) -> None:
        """Add names to the ones known, up to ``MAX_NAMES`` (a reading aid, not a record)."""
        for folded, written in names.items():
            if len(self.names) >= MAX_NAMES:
                break
            self.names.setdefault(folded, written)


class SessionContexts:
    """The Writer's in-memory discourse contexts, one per (user, session), least recently used dropped.

    A cold context (a new process, an evicted session) starts empty: the first message of a resumed
    session is read alone, as before this cache existed. No store read happens on the write path.
    """

    def __init__(self, capacity: int = 512):
        self.capacity = capacity
        self._lock = threading.Lock()
        self._items: OrderedDict[tuple[str, str], Discourse] = OrderedDict()
        self._names: dict[str, dict[str, str]] = {}  # per user, shared by their sessions' contexts

    def get(self, user_id: str, session_id: str | None) -> Discourse | None:
        """The session's context (made on first use); None without a session: nothing to carry."""
        if session_id is None:
            return None
        key = (user_id, session_id)
        with self._lock:
            context = self._items.get(key)
            if context is None:
                context = self._items[key] = Discourse(names=self._names.setdefault(user_id, {}))
                if len(self._items) > self.capacity:
                    (old_user, _), _ = self._items.popitem(last=False)
                    if not any(u == old_user for u, _ in self._items):
                        self._names.pop(old_user, None)
            else:
                self._items.move_to_end(key)
            return context

    def drop(self, user_id: str) -> None:
        """Forget every session context of a user (after any forget: what they said is gone)."""
        with self._lock:
            for key in [k for k in self._items if k[0] == user_id]:
                del self._items[key]
            self._names.pop(user_id, None)

    def __len__(self) -> int:
        return len(self._items)
