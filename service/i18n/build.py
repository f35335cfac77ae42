"""The catalogs compiled when the package is built or installed (``pip install``,
editable too): each ``locales/<lang>/LC_MESSAGES/<domain>.po`` into its ``.mo`` beside
it, which the package then ships (``pyproject.toml``: ``[tool.setuptools.cmdclass]``).
The ``.mo`` files are never committed: they are made from the ``.po`` files, always."""

from __future__ import annotations

from setuptools.command.build_py import build_py  # type: ignore[import-untyped]

from service.i18n.catalogs import DOMAINS, compile_po, mo_path, po_path
from service.i18n.locales import TRANSLATED


def compile_all() -> list[str]:
    """Every catalog compiled; the ``.mo`` files written."""
    written = []
    for lang in TRANSLATED:
        for domain in DOMAINS:
            target = mo_path(lang, domain)
            target.write_bytes(compile_po(po_path(lang, domain)))
            written.append(str(target))
    return written


class BuildPy(build_py):  # type: ignore[misc]
    """setuptools' ``build_py`` that compiles the catalogs first."""

    def run(self) -> None:
        for path in compile_all():
            self.announce(f"compiled {path}", level=2)
        super().run()
