"""The layer every frontend (the CLI, the MCP server, the REST API) shares.

- ``service.py``: ``MemoryService``, the operations by one name each, with the shared checks;
- ``models.py``: the full request and response models (the REST API's JSON); ``compact.py``: the
  shorter ones the MCP tools return (both import pydantic, so only the servers load them);
- ``times.py``: times in, as every frontend reads them; ``errors.py``: errors out (REST statuses,
  redaction, the shared "no such memory"); ``extras.py``: the message for a missing optional package.
"""

from .errors import STATUS_OF_ERROR, no_memory, redact, status_of
from .service import MAX_HITS, MemoryService
from .times import as_utc, parse_time, read_time

__all__ = ["MAX_HITS", "STATUS_OF_ERROR", "MemoryService", "as_utc", "no_memory",
           "parse_time", "read_time", "redact", "status_of"]
