"""The code location ``workspace.yaml`` and ``dg`` load: whatever ``defs/`` defines.

Every module under ``defs/`` is read (``load_from_defs_folder``): a new asset, check, job,
schedule or sensor there is loaded without being listed here. The resources and the executor
are ``defs/resources.py``'s; helpers that define nothing (``users.py``, ``env.py``) live beside
this file, outside ``defs/``.
"""

from pathlib import Path

import dagster as dg

PACKAGE = Path(__file__).parent


def build_definitions() -> dg.Definitions:
    """Everything under ``defs/``, with resources read from the environment as it is now."""
    if (PACKAGE.parent / "pyproject.toml").is_file():  # a checkout or an editable install
        return dg.load_from_defs_folder(path_within_project=PACKAGE)
    # An installed wheel carries no pyproject.toml to name the defs folder: load the module.
    from . import defs as defs_module

    return dg.load_defs(defs_root=defs_module)


@dg.definitions
def defs() -> dg.Definitions:
    return build_definitions()
