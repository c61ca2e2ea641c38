"""``dualmem config``: the settings a command would use, and where each came from."""

from __future__ import annotations

import argparse

from .common import HelpFormatter, print_json, table

_SECRETS = ("DUALMEM_LLM_API_KEY", "DUALMEM_EMBED_API_KEY")


def show(args: argparse.Namespace) -> int:
    from ..settings import default_config_path, provider_environ, resolve_settings

    settings = resolve_settings(args.store, args.embedder, args.config)
    values = provider_environ(settings)
    for name in _SECRETS:
        if name in values:
            values[name] = "***"
    rows = {name: (value, settings.origins.get(name, "default")) for name, value in values.items()}
    config_file = settings.config_file or f"none ({default_config_path()} does not exist)"
    if args.json:
        print_json({"config_file": config_file, "settings": {n: {"value": v, "from": o}
                                                              for n, (v, o) in rows.items()}})
        return 0
    print(f"config file: {config_file}")
    print(table(["SETTING", "FROM", "VALUE"], [[n, o, v] for n, (v, o) in rows.items()]))
    return 0


def register(commands: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = commands.add_parser(
        "config", parents=[common], formatter_class=HelpFormatter,
        help="show the settings in effect and where each came from",
        description="Resolve the store and model settings as every command does (flag > environment "
        "> config file > default) and show each value with its origin. API keys are masked.",
        epilog="examples:\n  dualmem config\n"
        "  DUALMEM_EMBEDDER=hashing:256 dualmem config --config ./dev.toml",
    )
    p.add_argument("--json", action="store_true", help="print the settings as JSON")
    p.set_defaults(run=show)
