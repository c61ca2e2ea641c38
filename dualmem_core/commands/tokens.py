"""``dualmem token create|list|revoke``: the API tokens ``serve`` and ``mcp --http`` ask for."""

from __future__ import annotations

import argparse
import sys

from .common import HelpFormatter, UsageError, print_json, table


def _file(args: argparse.Namespace):
    from ..service.tokens import TokenFile, tokens_path
    from ..settings import resolve_settings

    return TokenFile(tokens_path(resolve_settings(args.store, args.embedder, args.config).store_url))


def create(args: argparse.Namespace) -> int:
    if bool(args.user) == args.all_users:
        raise UsageError("name the users the token reaches (--user U, repeatable) or pass --all-users")
    tokens = _file(args)
    token, secret = tokens.create(args.user or (), all_users=args.all_users, label=args.label)
    if args.json:
        print_json({"id": token.id, "token": secret, "users": list(token.users), "all_users": token.all_users,
                    "label": token.label, "file": str(tokens.path)})
        return 0
    # the secret alone on stdout, so TOKEN=$(dualmem token create ...) works; the rest to stderr
    print(secret)
    print(f"made {token.id} for {token.scope()}, stored hashed in {tokens.path}. The token is shown "
          "only now: keep it; send it as 'Authorization: Bearer <token>'.", file=sys.stderr)
    return 0


def list_tokens(args: argparse.Namespace) -> int:
    tokens = _file(args)
    found = tokens.tokens()
    if args.json:
        print_json([{"id": t.id, "label": t.label, "users": list(t.users), "all_users": t.all_users,
                     "created": t.created} for t in found])
        return 0
    if not found:
        print(f"no tokens in {tokens.path}: the servers answer loopback without one")
        return 0
    print(table(["ID", "LABEL", "USERS", "CREATED"], [[t.id, t.label, t.scope(), t.created] for t in found]))
    return 0


def revoke(args: argparse.Namespace) -> int:
    tokens = _file(args)
    gone = tokens.revoke(args.id)
    left = len(tokens.tokens())
    print(f"revoked {gone.id} ({gone.scope()}); {left} token{'s' if left != 1 else ''} left"
          + ("" if left else ": loopback servers answer without a token again, others refuse everything"))
    return 0


def register(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = commands.add_parser(
        "token", formatter_class=HelpFormatter,
        help="make, list and revoke API tokens for serve and mcp --http",
        description="API tokens for the HTTP servers. Once any exists, every request to 'dualmem serve' "
        "and 'dualmem mcp --http' needs 'Authorization: Bearer <token>', and beyond loopback they refuse "
        "to start without one. A token reaches only its users. Tokens are kept hashed in a file beside "
        "the SQLite store (for Neo4j: tokens.json in the dualmem config directory); see docs/security.md.",
        epilog="examples:\n"
        "  dualmem token create --user u1 --label laptop\n"
        "  dualmem token create --all-users --label admin --store sqlite:////srv/memory.db\n"
        "  dualmem token list\n"
        "  dualmem token revoke tok_1a2b3c4d",
    )
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    c = actions.add_parser("create", parents=[common], formatter_class=HelpFormatter,
                           help="make a token and print it once",
                           description="Make a token for some users (or all) and print it, once, on stdout.")
    c.add_argument("--user", action="append", metavar="U", help="a user the token reaches (repeatable)")
    c.add_argument("--all-users", action="store_true", help="the token reaches every user")
    c.add_argument("--label", default="", help="a note to tell tokens apart in 'token list'")
    c.add_argument("--json", action="store_true", help="print id, token and users as JSON")
    c.set_defaults(run=create)
    ls = actions.add_parser("list", parents=[common], formatter_class=HelpFormatter,
                            help="the tokens: id, label, users, created (never the token)")
    ls.add_argument("--json", action="store_true", help="print the tokens as JSON")
    ls.set_defaults(run=list_tokens)
    r = actions.add_parser("revoke", parents=[common], formatter_class=HelpFormatter,
                           help="delete a token; running servers refuse it at once")
    r.add_argument("id", help="the token's id, from 'dualmem token list'")
    r.set_defaults(run=revoke)
