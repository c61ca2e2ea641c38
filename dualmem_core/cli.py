"""The ``dualmem`` command line. A thin shell: every action is a call into the library.

Errors a user can cause print one line and exit non-zero (2 for a command line that cannot
work, 1 for everything else); ``--debug`` shows the traceback. The handlers live in
``dualmem_core/commands/``, one module per group of commands.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from .commands import config, editing, importing, memory, servers, tokens, tools
from .commands.common import HelpFormatter, UsageError, store_options
from .errors import DualmemError

EPILOG = """\
Memory: remember, recall, history, forget, import. Editor: edit, runs, rollback.
Servers: mcp, serve, token. Settings: config. 'dualmem COMMAND --help' describes each, with examples.

Settings, highest precedence first: the flags --store / --embedder, the environment
(DUALMEM_STORE, DUALMEM_EMBEDDER, DUALMEM_LLM_MODEL, ...), the TOML config file (--config PATH,
else DUALMEM_CONFIG, else ~/.config/dualmem/config.toml if it exists), the defaults.
An example config file:

  store = "sqlite:////home/me/dualmem/memory.db"
  embedder = "hashing"
  [llm]
  model = "gpt-4o-mini"
  base_url = "http://localhost:11434/v1"   # any OpenAI-compatible endpoint

Other keys: llm.api_key, llm.timeout, llm.max_retries, embed.base_url, embed.api_key,
embed.dimension, embed.batch_size, cache.path, cache.mode (each the DUALMEM_* variable
of the same name).
"""


class Parser(argparse.ArgumentParser):
    """argparse that reports a bad command line in one line instead of the usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="dualmem", description="dualmem: long-term memory for AI agents.", epilog=EPILOG,
                    formatter_class=HelpFormatter)
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    common = store_options()
    memory.register(commands, common)
    importing.register(commands, common)
    editing.register(commands, common)
    servers.register(commands, common)
    tokens.register(commands, common)
    config.register(commands, common)
    tools.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args, extra = build_parser().parse_known_args(argv)
    except SystemExit as exc:  # --help, or a command line argparse refused (one line, see Parser)
        return exc.code if isinstance(exc.code, int) else 2
    if extra:  # argparse would blame the top-level parser; name the command instead
        print(f"dualmem {args.command}: error: unrecognized arguments: {' '.join(extra)} "
              f"(see 'dualmem {args.command} --help')", file=sys.stderr)
        return 2
    try:
        return args.run(args)
    except KeyboardInterrupt:
        print("dualmem: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `dualmem recall ... | head`
        return 0
    except Exception as exc:
        if args.debug:
            raise
        message = " ".join(str(exc).split())  # one line, whatever the message holds
        if isinstance(exc, DualmemError | OSError):
            print(f"dualmem: error: {message}", file=sys.stderr)
        else:
            print(f"dualmem: unexpected error: {type(exc).__name__}: {message} "
                  "(run with --debug for the traceback)", file=sys.stderr)
        return 2 if isinstance(exc, UsageError) else 1


if __name__ == "__main__":
    sys.exit(main())
