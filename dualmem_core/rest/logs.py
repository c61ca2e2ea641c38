"""uvicorn's access log without query strings.

A recall's question travels in the query string (``GET /v1/users/dana/recall?q=...``), and the
access log kept it after the user was forgotten: forget deletes from the store, not from log
files. The path alone still says who was served what kind of request.
"""

from __future__ import annotations

import logging

ACCESS_LOGGER = "uvicorn.access"


class PathsOnly(logging.Filter):
    """Cuts the query string from the path of uvicorn's access record, whose arguments are
    (client, method, path with query, HTTP version, status)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) == 5 and isinstance(args[2], str):
            record.args = (*args[:2], args[2].partition("?")[0], *args[3:])
        return True


def log_paths_only() -> None:
    """Install the filter once on uvicorn's access logger (after uvicorn configured its logging)."""
    access = logging.getLogger(ACCESS_LOGGER)
    if not any(isinstance(f, PathsOnly) for f in access.filters):
        access.addFilter(PathsOnly())
