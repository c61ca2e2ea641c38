"""``MemoryService``: the one object the CLI, the MCP server and the REST API call.

It holds the Writer, the Editor and their store, and offers the operations by one name each:
``remember``, ``recall``, ``history``, ``profile``, ``forget`` (with ``forget_memory`` and
``forget_user``), ``edit``, ``runs``, ``rollback`` and ``health``. It takes and returns the
library's own values (datetimes, the Writer's and Editor's dataclasses); each frontend parses its
requests into them and shapes the results (``models.py``, one set for REST and MCP; the CLI's
tables and ``--json``).
The checks every frontend makes the same way live here too: a memory id that names nothing of the
user's is ``NotFound`` (``errors.no_memory``), and a store that does not answer a health check is
``StoreUnavailable``. Forgetting everything of a user calls the ``dualmem.on_forget`` hooks here,
once, after the store's delete, whichever frontend asked.

Importing it imports no web framework, no MCP SDK and no pydantic: the CLI uses it too.

Each operation as the frontends name it. The message is ``content`` everywhere (REST's body
field, MCP's remember argument, the CLI's positional argument); MCP still accepts ``text``, its old
name, for one release (deprecated). REST and MCP return the same models (``models.py``: the same
field names, times as ISO 8601 UTC with null for an open end, a forget receipt's ``deleted``
counts); the CLI's ``--json`` is its own.

  service        REST (under /v1/users/{user_id})          MCP tool    CLI
  remember       POST /memories                            remember    remember, import
  recall         GET /recall?q=                            recall      recall
  history        GET /memories/{memory_id}/history         history     history
  profile        GET /profile (layered_profile)            profile     profile
  upcoming       GET /upcoming?within=7d                   upcoming    upcoming
  forget         DELETE /memories?source_id=               forget      forget --source-id
  forget_memory  DELETE /memories/{memory_id}              (forget)    forget --memory-id
  forget_user    DELETE /v1/users/{user_id}                (forget)    forget --everything --yes
  edit           POST /editor/runs                         -           edit
  runs           GET /editor/runs                          -           runs
  rollback       POST /editor/runs/{run_id}/rollback       -           rollback
  health         GET /healthz                              -           -

(MCP's one forget tool calls ``forget`` with source_ids, memory_id or everything: a memory id that
names nothing is an empty receipt there, where REST answers 404 and the CLI exits 1.)
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Literal, cast, overload

from ..errors import ConflictError, InvalidInput, NotFound, StoreUnavailable
from ..integrations.forget_hooks import HookReport, announce_forgotten
from ..store.validate import check_user_id
from .durations import parse_within
from .errors import no_memory
from .text import check_new_ids, check_unicode

MAX_HITS = 100  # the most hits one recall over REST or MCP returns (the CLI allows the store's MAX_K)
# A forget running at the same time (another request, or another process on the same SQLite file)
# can delete a memory a new message links to, between the Writer's reads and its write: the store
# then refuses the whole batch with NotFound, nothing written, and a fresh attempt reads again.
# The red-team pass saw a remember answer 404 about a memory the client never named.
REMEMBER_ATTEMPTS = 3

log = logging.getLogger(__name__)


@dataclass
class UserForgotten:
    """What forgetting everything of a user did: the store's counts per kind of record, and what the
    ``dualmem.on_forget`` hooks of other installed packages said (``integrations/forget_hooks.py``)."""

    deleted: dict[str, int]
    hooks: HookReport

    def hook_lines(self) -> list[str]:
        """One line per hook that did something or failed, for a frontend's reply."""
        return self.hooks.done + [f"failed: {line}" for line in self.hooks.failed]


if TYPE_CHECKING:
    from ..app import Services
    from ..editor import Editor, EditorConfig, EditorRun
    from ..providers.config import ProviderConfig
    from ..store import Store
    from ..store.forgetting import ForgetReceipt
    from ..writer.profile import Profile
    from ..writer.results import History, Hit, ProfileEntry, RememberResult
    from ..writer.upcoming import Intention
    from ..writer.writer import Writer


class MemoryService:
    """The memory operations over one Writer (and Editor), as every frontend offers them."""

    def __init__(self, writer: Writer, editor: Editor | None = None, *, services: Services | None = None,
                 max_message_chars: int | None = None):
        from ..settings import max_message_chars as configured

        self.writer = writer
        self.editor = editor
        self._services = services
        # one limit for every frontend: None reads DUALMEM_MAX_MESSAGE_CHARS (default 100,000)
        self.max_message_chars = max_message_chars or configured()

    @classmethod
    def open(cls, store_url: str | None = None, config: ProviderConfig | None = None, *,
             create: bool = True, max_message_chars: int | None = None,
             editor_config: EditorConfig | None = None) -> MemoryService:
        """The service over ``open_services(store_url, config, create=create)``; close it when done."""
        from ..app import open_services

        services = open_services(store_url, config, create=create, editor_config=editor_config)
        return cls(services.writer, services.editor, services=services, max_message_chars=max_message_chars)

    @property
    def store(self) -> Store:
        return self.writer.store

    def created_note(self) -> str | None:
        """'created a new store at ...' when opening made the store, for a frontend to show once."""
        return self._services.created_note() if self._services is not None else None

    def close(self) -> None:
        if self._services is not None:
            self._services.close()

    def __enter__(self) -> MemoryService:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the Writer ---------------------------------------------------------------------------

    @staticmethod
    def check_user(user_id: object) -> str:
        """The user id rule, for a frontend to apply before it opens anything."""
        return check_user_id(user_id)

    @staticmethod
    def check_memory_id(memory_id: str) -> None:
        """An empty memory id is refused in these words (the CLI checks before it opens a store):
        the Writer's own ("nothing to store", "needs source_ids=") misled."""
        if not memory_id:
            raise InvalidInput("the memory id is empty: pass a memory id from a recall hit or a "
                               "remember result")

    def remember(self, content: str | Sequence[dict], *, user_id: str, session_id: str | None = None,
                 agent_id: str | None = None, at: datetime | None = None, source_id: str | None = None,
                 role: str | None = None, speaker: str | None = None) -> RememberResult:
        """Store one message (a string) or a list of messages for ``user_id``."""
        check_unicode(content=content, session_id=session_id, agent_id=agent_id, source_id=source_id,
                      role=role, speaker=speaker)
        check_new_ids(content=content, session_id=session_id, agent_id=agent_id, source_id=source_id)
        self.check_size(content)
        missed: NotFound | None = None
        for _ in range(REMEMBER_ATTEMPTS):
            try:
                return self.writer.remember(content, user_id=user_id, session_id=session_id,
                                            agent_id=agent_id, at=at, source_id=source_id, speaker=speaker,
                                            role=role)
            except NotFound as exc:  # a record it linked to was forgotten meanwhile; nothing was written
                missed = exc
        raise ConflictError(
            f"records this message links to kept being forgotten while it was stored ({missed}); "
            f"nothing was written after {REMEMBER_ATTEMPTS} tries: send it again"
        ) from missed

    def check_size(self, content: str | Sequence[dict]) -> None:
        """``InvalidInput`` for a message longer than ``max_message_chars``, naming the message, the
        limit and the setting: the same refusal on the CLI, REST and MCP, before anything is read."""
        self.check_message_size(content, self.max_message_chars)

    @staticmethod
    def check_message_size(content: str | Sequence[dict], limit: int) -> None:
        """``check_size`` before a service is open (the CLI: a refused call creates no store)."""
        messages = [("content", content)] if isinstance(content, str) else [
            (f"content[{i}]", m.get("content")) for i, m in enumerate(content) if isinstance(m, Mapping)]
        for name, text in messages:
            if isinstance(text, str) and len(text) > limit:
                raise InvalidInput(
                    f"{name} has {len(text):,} characters; one message may have at most {limit:,} (the "
                    f"setting max_message_chars, DUALMEM_MAX_MESSAGE_CHARS). A long document is yours to "
                    "split: remember it as several messages, e.g. one per section or paragraph"
                )

    def recall(self, query: str, *, user_id: str, k: int = 5, as_of: datetime | None = None,
               known_at: datetime | None = None, session_id: str | None = None,
               agent_id: str | None = None) -> list[Hit]:
        """The ``k`` memories that best answer ``query``, as of a valid time and a belief time."""
        check_unicode(query=query, session_id=session_id, agent_id=agent_id)
        return self.writer.recall(query, user_id=user_id, k=k, as_of=as_of, known_at=known_at,
                                  agent_id=agent_id, session_id=session_id)

    def history(self, memory_id: str, *, user_id: str | None = None, missing: str | None = None,
                hide_unknown: bool = False) -> History:
        """Every version of a memory, oldest belief first.

        With ``missing``, a history without versions is ``no_memory(user_id, memory_id, missing)``;
        with ``hide_unknown`` too, so is the Writer's own ``NotFound`` (an unknown id, another
        user's memory), whose message would otherwise pass through."""
        check_unicode(memory_id=memory_id)
        self.check_memory_id(memory_id)
        try:
            found = self.writer.history(memory_id, user_id=user_id)
        except NotFound:
            if not hide_unknown or missing is None or user_id is None:
                raise
            found = None
        if missing is not None and user_id is not None and (found is None or not found.versions):
            raise no_memory(user_id, memory_id, missing)
        assert found is not None  # None only with missing and user_id set, which raised just above
        return found

    def profile(self, user_id: str, *, subject: str = "user") -> dict[str, ProfileEntry]:
        """The current value of each single-valued fact about ``subject``, by predicate."""
        return self.writer.profile(user_id, subject=subject)

    def layered_profile(self, user_id: str, *, subject: str = "user") -> Profile:
        """Identity (``profile``) and the lasting preferences and traits, each with its evidence."""
        return self.writer.layered_profile(user_id, subject=subject)

    def upcoming(self, user_id: str, *, now: datetime | None = None, within: str = "7d") -> list[Intention]:
        """The user's open plans due by ``now + within`` (``durations.parse_within``), soonest first."""
        return self.writer.upcoming(user_id, now=now, within=parse_within(within))

    @overload
    def forget(self, *, user_id: str, source_ids: Sequence[str] | None = None, memory_id: str | None = None,
               everything: Literal[False] = False) -> ForgetReceipt: ...

    @overload
    def forget(self, *, user_id: str, source_ids: Sequence[str] | None = None, memory_id: str | None = None,
               everything: bool) -> ForgetReceipt | dict[str, int]: ...

    def forget(self, *, user_id: str, source_ids: Sequence[str] | None = None, memory_id: str | None = None,
               everything: bool = False) -> ForgetReceipt | dict[str, int]:
        """Delete for real, by source ids, one memory, or everything of the user; a receipt (for
        ``everything``, the counts per kind of record). Nothing matched is an empty receipt."""
        check_unicode(source_ids=list(source_ids or ()), memory_id=memory_id)
        if everything:
            return self.forget_user(user_id).deleted
        if memory_id is not None:
            self.check_memory_id(memory_id)
        return self.writer.forget(user_id=user_id, source_ids=source_ids, memory_id=memory_id,
                                  everything=everything)

    def forget_memory(self, *, user_id: str, memory_id: str, missing: str) -> ForgetReceipt:
        """Delete one memory; ``no_memory(user_id, memory_id, missing)`` when it named nothing."""
        check_unicode(memory_id=memory_id)
        self.check_memory_id(memory_id)
        # without everything=True the Writer returns the store's ForgetReceipt
        receipt = cast("ForgetReceipt", self.writer.forget(user_id=user_id, memory_id=memory_id))
        if memory_id not in receipt.memory_ids:
            raise no_memory(user_id, memory_id, missing)
        return receipt

    def forget_user(self, user_id: str, *, purge_runs: bool = False,
                    log_failed_hooks: bool = True) -> UserForgotten:
        """Delete everything stored for the user, then tell the ``dualmem.on_forget`` hooks (once,
        for every frontend). A failing hook is reported (and logged, unless the caller says it
        itself: the CLI); the forget stands."""
        # with everything=True the Writer returns the store's counts per kind of record
        deleted = cast("dict[str, int]", self.writer.forget(user_id=user_id, everything=True))
        hooks = announce_forgotten(user_id, purge_runs=purge_runs)  # after the delete: it cannot undo it
        for line in hooks.failed if log_failed_hooks else ():
            log.warning("user %r is forgotten, but a forget hook failed: %s", user_id, line)
        return UserForgotten(deleted, hooks)

    # -- the Editor ---------------------------------------------------------------------------

    def _editor(self) -> Editor:
        if self.editor is None:
            raise InvalidInput("this memory service was opened without an Editor")
        return self.editor

    def edit(self, user_id: str, *, dry_run: bool = False,
             on_stage: Callable[[str], None] | None = None) -> EditorRun:
        """Run the Editor on the user's graph now, and wait for it."""
        return self._editor().run(user_id, dry_run=dry_run, on_stage=on_stage)

    def runs(self, user_id: str) -> list[EditorRun]:
        """Every published Editor run and rollback of the user, oldest first."""
        return self._editor().runs(user_id)

    def rollback(self, run_id: str, *, user_id: str | None = None, cascade: bool = False) -> EditorRun:
        """Undo one Editor run exactly, keeping everything written since."""
        check_unicode(run_id=run_id)
        return self._editor().rollback(run_id, user_id=user_id, cascade=cascade)

    def rollback_of(self, run_id: str, *, user_id: str | None = None) -> EditorRun | None:
        """The rollback already published for ``run_id``, if any; None for a run not rolled back
        or not found (``rollback`` then says which). A second rollback is a no-op that returns the
        first one again, counts and all, so a frontend asks this first to say it undid nothing."""
        check_unicode(run_id=run_id)
        for user in [user_id] if user_id is not None else self.store.list_users():
            try:
                self.store.get_run(user, run_id)
            except NotFound:
                continue
            return next((r for r in self._editor().runs(user)
                         if r.kind == "rollback" and r.rollback_of == run_id), None)
        return None

    # -- the store ----------------------------------------------------------------------------

    def health(self) -> str:
        """The store's backend (``sqlite``, ``bolt``, ...) if it answers a query, else StoreUnavailable."""
        try:
            self.store.counts("__healthz__")
        except Exception as exc:
            raise StoreUnavailable(f"the store did not answer a health check ({type(exc).__name__})") from exc
        return self.store.url.split(":", 1)[0]
