"""The Editor: five pure stages over a snapshot of one user's graph, one publish, exact rollback."""

from .config import EditorConfig
from .decisions import Decision, Revise, StageResult, combine
from .editor import Editor, EditorRun, new_run_id
from .judge import Judge
from .stages import STAGES, run_all, run_stage
from .view import GraphView

__all__ = [
    "STAGES",
    "Decision",
    "Editor",
    "EditorConfig",
    "EditorRun",
    "GraphView",
    "Judge",
    "Revise",
    "StageResult",
    "combine",
    "new_run_id",
    "run_all",
    "run_stage",
]
