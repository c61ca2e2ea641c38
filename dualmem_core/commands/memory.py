"""The Writer's verbs: remember, recall, history, forget, upcoming, profile."""

from __future__ import annotations

import argparse
import sys

from ..errors import InvalidInput
from ..service import MemoryService
from ..settings import resolve_settings
from ..timeutil import EARLIEST, FAR_FUTURE
from ..writer.inputs import ROLES
from .common import (
    TIME_HELP,
    HelpFormatter,
    UsageError,
    hit_count,
    iso_time,
    open_memory,
    plural,
    print_json,
    short_list,
    span,
    table,
)


def remember(args: argparse.Namespace) -> int:
    text = sys.stdin.read() if args.text == "-" else args.text
    if not text.strip():
        where = " (stdin)" if args.text == "-" else ""
        raise InvalidInput(f"nothing to remember: the text{where} is empty")
    MemoryService.check_user(args.user)  # before the store is opened: a refused call creates nothing
    MemoryService.check_message_size(text.strip(), resolve_settings(args.store, args.embedder,
                                                                    args.config).max_message_chars)
    with open_memory(args, create=True) as memory:
        result = memory.remember(
            text.strip(), user_id=args.user, session_id=args.session, agent_id=args.agent, at=args.at,
            source_id=args.source_id, speaker=args.speaker, role=args.role,
        )
    if args.json:
        print_json(result)
        return 0
    if result.already_stored:
        print(f"already stored for {args.user}: source id {result.already_stored[0]} "
              "has this text; nothing new was written")
        return 0
    print(f"remembered for {args.user}: episode {result.episode_ids[0]}, "
          f"{plural(len(result.memory_ids), 'new memory', 'new memories')} "
          f"({plural(len(result.fact_ids), 'fact')}), {len(result.skipped_duplicates)} already known")
    for fact in result.facts:
        start, end = fact.valid_from, fact.valid_to
        when = f" [{span(start or EARLIEST, end or FAR_FUTURE)}]" if start or end else ""
        print(f"  fact: {'NOT ' if fact.negated else ''}{fact.subject} {fact.predicate} {fact.object}{when}")
    return 0


def recall(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        hits = memory.recall(
            args.query, user_id=args.user, k=args.k, as_of=args.as_of, known_at=args.known_at,
            agent_id=args.agent, session_id=args.session,
        )
    if args.json:
        print_json(hits)
        return 0
    if not hits:
        print(f"no memories of {args.user} match")
        return 0
    print(table(
        ["SCORE", "NOW", "KIND", "VALID", "SOURCES", "MEMORY", "TEXT"],
        [[f"{h.score:.3f}", "current" if h.current else "past", h.kind, span(h.valid_from, h.valid_to),
          short_list(h.sources), h.memory_id, h.text] for h in hits],
    ))
    return 0


def history(args: argparse.Namespace) -> int:
    MemoryService.check_memory_id(args.memory_id)  # before the store is opened, as remember's checks
    with open_memory(args) as memory:
        found = memory.history(args.memory_id, user_id=args.user)
    if args.json:
        print_json(found)
        return 0
    print(f"memory {found.memory_id} of user {found.user_id}")
    print(table(
        ["VERSION", "STATUS", "VALID", "BELIEVED", "BY", "TEXT"],
        [[v.version_id, v.status, span(v.valid_from, v.valid_to), span(v.tx_from, v.tx_to), v.created_by,
          v.text] for v in found.versions],
    ))
    for label, ids in (("sources", found.sources), ("superseded by", found.superseded_by),
                       ("supersedes", found.supersedes)):
        if ids:
            print(f"{label}: {', '.join(ids)}")
    return 0


def forget(args: argparse.Namespace) -> int:
    if args.everything and not args.yes:
        raise UsageError(f"--everything deletes every memory of user {args.user!r} for good; "
                         "add --yes to confirm")
    if args.purge_runs and not args.everything:
        raise UsageError("--purge-runs deletes a forgotten user's Editor runs: it goes with --everything")
    if args.memory_id is not None:
        MemoryService.check_memory_id(args.memory_id)
    hooks: list[str] = []
    with open_memory(args) as memory:
        if args.memory_id is not None:  # as REST's 404: an id that names nothing is an error
            receipt = memory.forget_memory(user_id=args.user, memory_id=args.memory_id,
                                           missing="nothing was deleted (take ids from recall or remember)")
        elif args.everything:
            # the service runs the dualmem.on_forget hooks after the store's delete, for every frontend
            # it says a failed hook itself, so the service's log line would only repeat it on stderr
            gone = memory.forget_user(args.user, purge_runs=args.purge_runs, log_failed_hooks=False)
            receipt, hooks = gone.deleted, gone.hooks.done
            for line in gone.hooks.failed:
                print(f"warning: the user is forgotten, but a forget hook failed: {line}", file=sys.stderr)
        else:
            receipt = memory.forget(user_id=args.user, source_ids=args.source_id)
    if args.json:
        print_json(receipt)
        return 0
    if isinstance(receipt, dict):  # everything: counts per kind of record
        shown = ", ".join(f"{n} {kind}" for kind, n in receipt.items())
        print(f"forgot everything of user {args.user}: {shown or 'nothing was stored'}")
        for line in hooks:
            print(f"  {line}")
        return 0
    print(f"forgot for user {receipt.user_id}: {plural(len(receipt.episode_ids), 'episode')}, "
          f"{plural(len(receipt.memory_ids), 'memory', 'memories')} "
          f"({plural(receipt.versions, 'version')}), "
          f"{plural(len(receipt.entity_ids), 'entity', 'entities')}, {plural(receipt.edges, 'edge')}")
    for label, ids in (("episodes", receipt.episode_ids), ("memories", receipt.memory_ids),
                       ("entities", receipt.entity_ids),
                       ("kept (lost only this provenance)", receipt.kept_memory_ids)):
        if ids:
            print(f"  {label}: {', '.join(ids)}")
    if not receipt.deleted_ids:
        print("  nothing matched: no such source id or memory for this user")
    return 0


def upcoming(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        found = memory.upcoming(args.user, now=args.now, within=args.within)
    if args.json:
        print_json(found)
        return 0
    if not found:
        print(f"no open plans of {args.user} come due within {args.within}")
        return 0
    print(table(["DUE", "SOURCES", "MEMORY", "TEXT"],
                [[i.due.isoformat(), short_list(i.sources), i.memory_id, i.text] for i in found]))
    return 0


def profile(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        found = memory.layered_profile(args.user, subject=args.subject)
    if args.json:  # in REST's and MCP's words: the identity part is "entries" there
        print_json({"user_id": args.user, "subject": args.subject, "entries": found.identity,
                    "lasting": found.lasting})
        return 0
    if not found.identity and not found.lasting:
        print(f"nothing known about {args.subject} of {args.user} yet")
        return 0
    if found.identity:
        print(table(["IDENTITY", "VALUE", "SOURCES", "TEXT"],
                    [[p, e.value, short_list(e.sources), e.text] for p, e in found.identity.items()]))
    if found.lasting:
        print(table(["LASTING", "VALUE", "OCCASIONS", "SOURCES", "TEXT"],
                    [[e.predicate, e.value, str(e.occasions), short_list(e.sources), e.text]
                     for e in found.lasting]))
    return 0


def _scope(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--session", metavar="ID", help="session id (recall: only this session's memories)")
    parser.add_argument("--agent", metavar="ID", help="agent id (recall: only this agent's memories)")


def register(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = commands.add_parser(
        "remember", parents=[common], formatter_class=HelpFormatter,
        help="store one message for a user",
        description="Store one message: kept as an episode, recallable as an observation, "
        "and mined for facts (where the user lives, works, likes...).",
        epilog="examples:\n"
        "  dualmem remember --user u1 'I moved to Portland last week.'\n"
        "  dualmem remember --user u1 --at 2026-03-02T18:00Z --source-id msg-17 'I moved to Portland.'\n"
        "  echo 'My sister Lena lives in Seattle.' | dualmem remember --user u1 -",
    )
    p.add_argument("text", help="the message, or - to read it from stdin")
    p.add_argument("--user", required=True, metavar="ID", help="whose memory (required)")
    _scope(p)
    p.add_argument("--at", type=iso_time, metavar="TIME",
                   help=f"when it was said (default: now); relative dates resolve against it. {TIME_HELP}")
    p.add_argument("--source-id", metavar="ID",
                   help="your id for the message ('forget --source-id' deletes by it)")
    p.add_argument("--speaker", metavar="NAME", help="who said it (default: the role)")
    p.add_argument("--role", choices=ROLES, default="user",
                   help="user (default; mined for facts), assistant, system or tool (stored, not mined)")
    p.add_argument("--json", action="store_true", help="print the result (ids, facts) as JSON")
    p.set_defaults(run=remember)

    p = commands.add_parser(
        "recall", parents=[common], formatter_class=HelpFormatter,
        help="the memories that best answer a question",
        description="Hybrid recall (vectors, full text, shared entities). The table shows each hit's "
        "score, whether it is current or past, its kind (observation or fact), when it held, "
        "its sources and id; --json gives everything, including why it ranked.",
        epilog="examples:\n"
        "  dualmem recall --user u1 'Where does the user live?'\n"
        "  dualmem recall --user u1 --as-of 2026-02-01 'Where did the user live?'\n"
        "  dualmem recall --user u1 --known-at 2026-03-01 -k 3 --json 'home city'\n\n"
        "In JSON an open end (still valid, still believed) is null.",
    )
    p.add_argument("query", help="what to look for, in words")
    p.add_argument("--user", required=True, metavar="ID", help="whose memory (required)")
    p.add_argument("-k", type=hit_count, default=5, help="how many hits, 1 to 10000 (default: 5)")
    p.add_argument("--as-of", type=iso_time, metavar="TIME",
                   help=f"what held in the world at TIME (valid time). {TIME_HELP}")
    p.add_argument("--known-at", type=iso_time, metavar="TIME",
                   help="what the memory believed at TIME (transaction time)")
    _scope(p)
    p.add_argument("--json", action="store_true", help="print the hits as a JSON list")
    p.set_defaults(run=recall)

    p = commands.add_parser(
        "history", parents=[common], formatter_class=HelpFormatter,
        help="every version of one memory and what superseded it",
        description="A memory's versions in belief order, with when each held (VALID) and when the "
        "memory believed it (BELIEVED), who wrote it, its sources and supersession links.",
        epilog="example:\n  dualmem history mem_0195f0c2a1b3...   (ids come from recall)",
    )
    p.add_argument("memory_id", metavar="MEMORY_ID", help="a memory id, as recall shows it")
    p.add_argument("--user", metavar="ID", help="the memory's user (default: looked up)")
    p.add_argument("--json", action="store_true", help="print the history as JSON")
    p.set_defaults(run=history)

    p = commands.add_parser(
        "forget", parents=[common], formatter_class=HelpFormatter,
        help="delete memories for real, with a receipt",
        description="Delete by your source ids (the episodes, the memories that came only from them, "
        "and entities nothing else mentions), one memory, or a user's everything. Memories that "
        "also came from other messages only lose the forgotten provenance. Prints the receipt.",
        epilog="examples:\n"
        "  dualmem forget --user u1 --source-id msg-17 --source-id msg-18\n"
        "  dualmem forget --user u1 --memory-id mem_0195f0c2a1b3...\n"
        "  dualmem forget --user u1 --everything --yes",
    )
    p.add_argument("--user", required=True, metavar="ID", help="whose memory (required)")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--source-id", action="append", metavar="ID",
                      help="a source id given to remember or import (repeatable)")
    what.add_argument("--memory-id", metavar="ID", help="one memory, as recall shows it")
    what.add_argument("--everything", action="store_true", help="every record of the user (needs --yes)")
    p.add_argument("--yes", action="store_true", help="confirm --everything")
    p.add_argument("--purge-runs", action="store_true",
                   help="with --everything: also delete the user's Editor runs and their event logs "
                   "from the Dagster instance in DAGSTER_HOME")
    p.add_argument("--json", action="store_true", help="print the receipt as JSON")
    p.set_defaults(run=forget)

    p = commands.add_parser(
        "upcoming", parents=[common], formatter_class=HelpFormatter,
        help="the user's open plans coming due",
        description="Open intentions (plans the user said, not since said to be done or dropped) "
        "due from the start of today to now plus --within. The Editor's intentions stage makes "
        "them when it is on (DUALMEM_EDITOR_LAYERS=intentions, then dualmem edit); a plan said "
        "without a date is never listed.",
        epilog="examples:\n  dualmem upcoming --user u1\n  dualmem upcoming --user u1 --within 30d --json",
    )
    p.add_argument("--user", required=True, metavar="ID", help="whose memory (required)")
    p.add_argument("--within", default="7d", metavar="DURATION",
                   help="how far ahead: a whole number and h, d or w (default: 7d)")
    p.add_argument("--now", type=iso_time, metavar="TIME",
                   help=f"count from TIME (default: now). {TIME_HELP}")
    p.add_argument("--json", action="store_true", help="print the intentions as a JSON list")
    p.set_defaults(run=upcoming)

    p = commands.add_parser(
        "profile", parents=[common], formatter_class=HelpFormatter,
        help="who the user is and their lasting preferences",
        description="Identity: the current value of each single-valued fact (lives in, works at, ...). "
        "Lasting: the current multi-valued facts (likes, hobbies, languages, ...) told on two or more "
        "sessions or days, or on one and in the turns of an Editor topic; each with its sources.",
        epilog="examples:\n  dualmem profile --user u1\n  dualmem profile --user u1 --subject Lena --json",
    )
    p.add_argument("--user", required=True, metavar="ID", help="whose memory (required)")
    p.add_argument("--subject", default="user", metavar="NAME",
                   help="whose profile: the user (default) or a person they mentioned")
    p.add_argument("--json", action="store_true", help="print the profile as JSON")
    p.set_defaults(run=profile)
