"""The direction of imports the package layout promises (store <- vocab <- writer, editor).

``dualmem_core.vocab`` is below the writer and the Editor, so it imports neither; the Writer's
core and the Editor reach the rule extractor only through ``extractors.default_extractor``, so
importing them loads no rule module.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).parent.parent / "dualmem_core"


def _imported(path: Path, module: str) -> set[str]:
    """Absolute names of the modules ``path`` (the module ``module``) imports."""
    out = set()
    package = module.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            out |= {base} | {f"{base}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return out


def test_vocab_imports_nothing_above_it() -> None:
    for path in sorted((PACKAGE / "vocab").glob("*.py")):
        names = _imported(path, f"dualmem_core.vocab.{path.stem}")
        above = {n for n in names if n.startswith("dualmem_core.") and not n.startswith(
            ("dualmem_core.vocab", "dualmem_core.store"))}
        assert not above, f"{path.name} imports {sorted(above)}"


def test_writer_core_and_editor_load_no_rule_module() -> None:
    code = ("import sys, dualmem_core, dualmem_core.editor, dualmem_core.writer.writer;"
            "print(sorted(m for m in sys.modules if m.startswith('dualmem_core.writer.extractors.rules')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            cwd=PACKAGE.parent).stdout.strip()
    assert loaded == "[]"
