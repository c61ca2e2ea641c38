"""dualmem's Editor as a Dagster code location: a thin layer over ``dualmem_core``.

``definitions.py`` loads everything ``defs/`` defines (``load_from_defs_folder``): the snapshot,
the Editor's stages, change set, checks and publish, the evaluation check, the rollback job,
the sensor and schedule, and ``defs/resources.py``'s resources and executor. ``users.py`` (the
users partitions, ``python -m dualmem_pipeline.users``) and ``env.py`` are helpers beside it.
"""
