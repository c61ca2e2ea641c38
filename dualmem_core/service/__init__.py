"""The layer every frontend (the CLI, the MCP server, the REST API) shares.

- ``service.py``: ``MemoryService``, the operations by one name each, with the shared checks;
- ``models.py``: the request and response models, one set for the REST API and the MCP tools;
  ``compact.py``: the MCP tools' parameter descriptions (both import pydantic, so only the
  servers load them);
- ``times.py``: times in, as every frontend reads them; ``errors.py``: errors out (REST statuses,
  redaction, the shared "no such memory"); ``extras.py``: the message for a missing optional package.
"""

from .errors import STATUS_OF_ERROR, no_memory, redact, status_of
from .service import MAX_HITS, MemoryService
from .times import as_utc, parse_time, read_time

__all__ = ["MAX_HITS", "STATUS_OF_ERROR", "MemoryService", "as_utc", "no_memory",
           "parse_time", "read_time", "redact", "status_of"]
