"""A local Neo4j Community 5.26 server (embedded, Bolt on 127.0.0.1) built from Maven Central."""

from .build import NEO4J_VERSION, LauncherBuild, Neo4jUnavailable, ensure_built
from .server import LocalNeo4j, main_start, main_stop

__all__ = ["NEO4J_VERSION", "LauncherBuild", "LocalNeo4j", "Neo4jUnavailable", "ensure_built",
           "main_start", "main_stop"]
