"""The Editor's verbs, run inline without Dagster: edit, rollback, runs."""

from __future__ import annotations

import argparse

from ..editor import STAGES, EditorRun
from ..errors import NotFound
from .common import HelpFormatter, day, open_memory, print_json, progress, table


def edit(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        bar = progress(total=len(STAGES), desc=f"editing {args.user}", unit="stage")

        def on_stage(name: str) -> None:
            bar.set_postfix_str(name)
            bar.update(0 if name == STAGES[0] else 1)

        try:
            run = memory.edit(args.user, dry_run=args.dry_run, on_stage=on_stage)
        finally:
            bar.close()
    if args.json:
        print_json(_summary(run))
        return 0
    if args.dry_run:
        head = f"dry run for user {args.user}: nothing was written"
    elif run.applied_at is None:
        head = f"Editor run for user {args.user}: nothing to change"
    else:
        head = (f"Editor run {run.run_id} for user {args.user}: {run.operations} operations applied, "
                f"{len(run.skipped)} skipped ({run.duration_s:.2f} s)")
    print(head)
    changing = {r.stage: len(r.changing()) for r in run.stages}
    print(table(
        ["STAGE", "CHANGES", "DECISIONS"],
        [[stage, changing.get(stage, 0), _counts(run.counts.get(stage, {}))] for stage in STAGES],
    ))
    if run.llm_calls:
        print(f"LLM: {run.llm_calls} calls, {run.llm_tokens} tokens, {run.llm_failures} failures")
    for skip in run.skipped:
        print(f"skipped {skip['group']}: {skip['reason']}")
    if run.applied_at is not None:
        print(f"undo it with: dualmem rollback {run.run_id}")
    return 0


def rollback(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        # asked first: a second rollback returns the first one, whose counts read as new work
        earlier = memory.rollback_of(args.run_id, user_id=args.user)
        try:
            run = earlier or memory.rollback(args.run_id, user_id=args.user, cascade=args.cascade)
        except NotFound:
            whose = f"user {args.user!r}" if args.user else "any user"
            raise NotFound(f"no Editor run {args.run_id!r} for {whose} in this store; "
                           "'dualmem runs --user ID' lists them") from None
    if args.json:
        print_json({**_summary(run), "already_rolled_back": earlier is not None})
        return 0
    if earlier is not None:
        when = f", at {run.applied_at:%Y-%m-%d %H:%M:%S} UTC" if run.applied_at else ""
        print(f"{run.rollback_of} was already rolled back for user {run.user_id} (as {run.run_id}{when}); "
              "nothing was undone this time")
        return 0
    print(f"rolled back {run.rollback_of} for user {run.user_id} (as {run.run_id}): "
          f"{run.operations} operations undone, {len(run.skipped)} skipped")
    for skip in run.skipped:
        print(f"skipped {skip['group']}: {skip['reason']}")
    return 0


def runs(args: argparse.Namespace) -> int:
    with open_memory(args) as memory:
        found = memory.runs(args.user)
    if args.json:
        print_json([_summary(r) for r in found])
        return 0
    if not found:
        print(f"no Editor runs for user {args.user}")
        return 0
    undone = {r.rollback_of for r in found if r.kind == "rollback"}
    print(table(
        ["RUN", "KIND", "APPLIED", "OPS", "SKIPPED", "WHAT"],
        [[r.run_id, r.kind, day(r.applied_at) if r.applied_at else "-", r.operations, len(r.skipped),
          f"undoes {r.rollback_of}" if r.kind == "rollback"
          else ("(rolled back) " if r.run_id in undone else "") + _changes(r)] for r in found],
    ))
    return 0


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{action} {n}" for action, n in sorted(counts.items())) or "-"


def _changes(run: EditorRun) -> str:
    return "; ".join(f"{stage}: {_counts(c)}" for stage, c in run.counts.items() if c) or "-"


def _summary(run: EditorRun) -> dict:
    """The run without its in-process decision objects."""
    return {
        "run_id": run.run_id, "user_id": run.user_id, "kind": run.kind, "counts": run.counts,
        "operations": run.operations, "skipped": run.skipped, "llm_calls": run.llm_calls,
        "llm_tokens": run.llm_tokens, "llm_failures": run.llm_failures, "duration_s": run.duration_s,
        "applied_at": run.applied_at, "rollback_of": run.rollback_of,
    }


def register(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = commands.add_parser(
        "edit", parents=[common], formatter_class=HelpFormatter,
        help="run the Editor on one user's memory now (no Dagster)",
        description="Snapshot the user's graph, run the five stages (" + ", ".join(STAGES) + ") and "
        "publish one change set in one transaction. Prints the decisions per stage, the operations "
        "applied and any skipped because the Writer changed their target meanwhile. Every run can be "
        "undone with 'dualmem rollback RUN_ID'.",
        epilog="examples:\n  dualmem edit --user u1\n  dualmem edit --user u1 --dry-run --json",
    )
    p.add_argument("--user", required=True, metavar="ID", help="whose memory (required)")
    p.add_argument("--dry-run", action="store_true", help="decide, show, but publish nothing")
    p.add_argument("--json", action="store_true", help="print the run as JSON")
    p.set_defaults(run=edit)

    p = commands.add_parser(
        "rollback", parents=[common], formatter_class=HelpFormatter,
        help="undo one Editor run exactly",
        description="Undo an Editor run, keeping everything the Writer wrote since. Refuses when a "
        "later run still applied changed the same memories, unless --cascade rolls those back "
        "first (newest first). Rolling back twice undoes nothing and says so.",
        epilog="examples:\n  dualmem rollback run-20260302T180000-1a2b3c4d\n"
        "  dualmem rollback run-20260302T180000-1a2b3c4d --user u1 --cascade",
    )
    p.add_argument("run_id", metavar="RUN_ID", help="a run id, as edit and runs show it")
    p.add_argument("--user", metavar="ID", help="the run's user (default: looked up)")
    p.add_argument("--cascade", action="store_true", help="also roll back later runs that overlap it")
    p.add_argument("--json", action="store_true", help="print the rollback as JSON")
    p.set_defaults(run=rollback)

    p = commands.add_parser(
        "runs", parents=[common], formatter_class=HelpFormatter,
        help="a user's Editor runs and rollbacks, oldest first",
        description="Every published Editor run and rollback of a user, oldest first: id, kind, when "
        "it was applied, operations applied and skipped, and what it changed.",
        epilog="example:\n  dualmem runs --user u1 --json",
    )
    p.add_argument("--user", required=True, metavar="ID", help="whose runs (required)")
    p.add_argument("--json", action="store_true", help="print the runs as a JSON list")
    p.set_defaults(run=runs)
