"""dualmem inside other agent frameworks, each behind its own extra (``langgraph``: LangGraph's store).

Nothing here is imported by the core; importing a module of this package without its extra
raises ``MissingExtra`` naming the extra.
"""
