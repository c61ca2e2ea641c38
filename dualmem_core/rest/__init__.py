"""The HTTP API (FastAPI): the Writer's and the Editor's operations as JSON, with an OpenAPI description.

``create_app(store_url)`` builds the application; ``serve(host, port, store_url)`` runs it with
uvicorn on loopback by default. ``docs/rest.md`` lists the endpoints and the error mapping.
"""

from .app import MAX_BODY_BYTES, STATUS_OF_ERROR, create_app, serve

__all__ = ["MAX_BODY_BYTES", "STATUS_OF_ERROR", "create_app", "serve"]
