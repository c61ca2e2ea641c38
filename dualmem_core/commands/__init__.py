"""The ``dualmem`` command handlers, one module per group; ``cli.py`` assembles the parser.

Each module's ``register`` adds its subcommands (with their help) and sets ``run`` to the
handler, a function of the parsed arguments that returns the exit code.
"""
