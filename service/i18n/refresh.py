"""Extract the messages from the source and bring every catalog up to them.

    .venv/bin/python -m service.i18n.refresh [messages|pages]

For each domain (``messages``: the server; ``pages``: the pages' scripts) it runs
``pybabel extract`` into ``locales/<domain>.pot``, then ``pybabel update`` (``pybabel
init`` for a new language) for each translated language: new messages come in
untranslated, gone ones go, nothing is guessed (no fuzzy matching). Then translate the
new entries in the ``.po`` files; ``tests/i18n`` fails while one is missing.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from service.i18n.catalogs import LOCALES, po_path
from service.i18n.locales import TRANSLATED

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).parent
KEYWORDS = {
    "messages": [
        *("--no-default-keywords", "-k", "gettext:2", "-k", "ngettext:2,3"),
        *("-k", "N_", "-k", "say", "-k", "say_n:1,2"),
    ],
    "pages": ["--no-default-keywords", "-k", "_", "-k", "ngettext:1,2"],
}
COMMON = ["--sort-output", "--add-location=file", "-w", "100", "--project=tongiaki"]


def pybabel(*args: str | Path) -> None:
    command = [str(Path(sys.executable).with_name("pybabel")), *map(str, args)]
    print("refresh:", " ".join(command[1:]), flush=True)
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


def template(domain: str) -> Path:
    return LOCALES / f"{domain}.pot"


def extract(domain: str, into: Path) -> None:
    """``pybabel extract`` of ``domain`` into ``into``."""
    mapping = HERE / f"babel-{domain}.cfg"
    pybabel("extract", "-F", mapping, *KEYWORDS[domain], *COMMON, "-o", into, ".")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    for domain in args or list(KEYWORDS):
        pot = template(domain)
        extract(domain, pot)
        for lang in TRANSLATED:
            made = po_path(lang, domain).exists()
            step = "update" if made else "init"
            extra = ["--no-fuzzy-matching", "--ignore-obsolete", "-w", "100"] if made else []
            pybabel(step, "-i", pot, "-d", LOCALES, "-D", domain, "-l", lang, *extra)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
