"""The catalogs compiled when the package is built or installed (``pip install``,
editable too): each ``locales/<lang>/LC_MESSAGES/<domain>.po`` into its ``.mo`` beside
it, which the package then ships (``pyproject.toml``: ``[tool.setuptools.cmdclass]``).
The ``.mo`` files are never committed: they are made from the ``.po`` files, always.

setuptools loads this module by itself, before the package can be imported (the
project's folder is not on the path then), so it needs nothing but Babel and
setuptools: it finds the catalogs beside this file.
"""

from __future__ import annotations

from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from setuptools.command.build_py import build_py  # type: ignore[import-untyped]

LOCALES = Path(__file__).parent / "locales"


def compile_all(locales: Path = LOCALES) -> list[Path]:
    """Every ``.po`` under ``locales`` compiled to its ``.mo`` (fuzzy entries left out,
    as ``pybabel compile`` does); the ``.mo`` files written."""
    written = []
    for po in sorted(locales.glob("*/LC_MESSAGES/*.po")):
        with po.open("rb") as handle:
            catalog = read_po(handle)
        with po.with_suffix(".mo").open("wb") as out:
            write_mo(out, catalog, use_fuzzy=False)
        written.append(po.with_suffix(".mo"))
    return written


class BuildPy(build_py):  # type: ignore[misc]
    """setuptools' ``build_py`` that compiles the catalogs first."""

    def run(self) -> None:
        for path in compile_all():
            self.announce(f"compiled {path}", level=2)
        super().run()
