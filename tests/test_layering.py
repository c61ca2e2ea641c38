"""The direction of imports the package layout promises: store <- vocab <- writer, editor <- service
<- frontends, and never back up.

Each of ``dualmem_core``'s packages and top-level modules has a layer; a module imports only from
its own package or from lower layers (so the Writer and the Editor, side by side, import neither
the other). The Writer's core and the Editor reach the rule extractor only through
``extractors.default_extractor``, so importing them loads no rule module.
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


# Lowest first. A name is a package of dualmem_core or one of its top-level modules.
LAYERS = [
    {"errors"},
    {"timeutil", "extras"},
    {"store", "providers", "prompts", "local_neo4j", "slots"},
    {"vocab", "settings"},
    {"writer", "editor"},
    {"app", "evaluation", "integrations"},
    {"service", "demo"},
    {"mcp_server", "rest"},
    {"commands"},
    {"cli"},
]
LAYER = {name: depth for depth, names in enumerate(LAYERS) for name in names}


def _part(module: str) -> str:
    """The package or top-level module of ``dualmem_core`` that ``module`` belongs to."""
    return module.split(".")[1]


def test_every_part_of_the_package_has_a_layer() -> None:
    parts = {p.stem for p in PACKAGE.iterdir() if (p.suffix == ".py" or p.is_dir()) and p.stem != "__init__"
             and not p.name.startswith((".", "__"))}
    assert parts == set(LAYER), f"give these a layer: {sorted(parts - set(LAYER))}"


def test_imports_point_down_or_within_a_part() -> None:
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE.parent).with_suffix("")
        module = ".".join(relative.parts[:-1] if relative.name == "__init__" else relative.parts)
        if module == "dualmem_core":  # the package's front door re-exports the public names
            continue
        if path.name == "__init__.py":
            module += ".__init__"  # relative imports of a package's __init__ start at the package
        for name in _imported(path, module):
            if not name.startswith("dualmem_core.") or _part(name) == _part(module):
                continue
            if _part(name) in LAYER and LAYER[_part(name)] >= LAYER[_part(module)]:
                upward.append(f"{module} imports {name}")
    assert not upward, upward


def test_writer_core_and_editor_load_no_rule_module() -> None:
    code = ("import sys, dualmem_core, dualmem_core.editor, dualmem_core.writer.writer;"
            "print(sorted(m for m in sys.modules if m.startswith('dualmem_core.writer.extractors.rules')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            cwd=PACKAGE.parent).stdout.strip()
    assert loaded == "[]"
