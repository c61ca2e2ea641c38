"""The code location ``workspace.yaml`` and ``dg`` load: whatever ``defs/`` defines.

Every module under ``defs/`` is read (``load_from_defs_folder``): a new asset, check, job,
schedule or sensor there is loaded without being listed here. The resources and the executor
are ``defs/resources.py``'s; helpers that define nothing (``users.py``, ``env.py``) live beside
this file, outside ``defs/``. The project file it reads is the package's own ``dg.toml``, so an
installed wheel loads the same definitions as a checkout.
"""

from pathlib import Path

import dagster as dg

PACKAGE = Path(__file__).parent


def build_definitions() -> dg.Definitions:
    """Everything under ``defs/``, with resources read from the environment as it is now."""
    return dg.load_from_defs_folder(path_within_project=PACKAGE)


@dg.definitions
def defs() -> dg.Definitions:
    return build_definitions()
