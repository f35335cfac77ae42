"""docs/architecture.md names every module of the service with its one concern (issue 27):
a module added under service/ without a line there fails here, and so does a path the
document names that is no longer in the tree."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
NAMED = re.compile(r"`((?:service|projections|workers|domain|requirements)/[A-Za-z0-9_./]*)`")


def named_in(doc: str, path: Path) -> bool:
    """The module's whole path is named, or (a package's files listed together) its
    folder's path and its file name both are."""
    rel = path.relative_to(ROOT).as_posix()
    if path.name == "__init__.py":
        return f"`{path.parent.relative_to(ROOT).as_posix()}/`" in doc
    folder = f"`{path.parent.relative_to(ROOT).as_posix()}/`"
    return f"`{rel}`" in doc or (folder in doc and f"`{path.name}`" in doc)


def test_every_module_under_service_projections_and_workers_is_named():
    doc = DOC.read_text()
    missing = [
        p.relative_to(ROOT).as_posix()
        for top in ("service", "projections", "workers")
        for p in sorted((ROOT / top).rglob("*.py"))
        if p.parent != ROOT / top or p.name != "__init__.py"
        if not named_in(doc, p)
    ]
    assert not missing, "not named in docs/architecture.md: " + ", ".join(missing)


def test_every_path_the_document_names_is_there():
    gone = sorted({m for m in NAMED.findall(DOC.read_text()) if not (ROOT / m).exists()})
    assert not gone, "docs/architecture.md names paths that are not in the tree: " + ", ".join(gone)


def test_the_check_sees_a_module_that_is_not_named(tmp_path):
    """Not vacuous: a module the document does not name is found."""
    doc = "`service/play/` … `service/play/games.py`"
    assert named_in(doc, ROOT / "service" / "play" / "games.py")
    assert not named_in(doc, ROOT / "service" / "play" / "text.py")
    assert named_in(doc, ROOT / "service" / "play" / "__init__.py")
    assert not named_in(doc, ROOT / "service" / "audit" / "__init__.py")
