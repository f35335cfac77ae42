"""Accessibility checks for the browser tests: axe-core, vendored under ``vendor/``.

``axe_check(page)`` injects axe-core (after checking the file's sha256 against the one
``vendor/README.md`` gives) and fails on every serious or critical violation, listing
each rule with the elements it found, in words a person can act on.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

VENDOR = Path(__file__).parent / "vendor"
AXE = VENDOR / "axe.min.js"
IMPACTS = ("serious", "critical")


def _axe_source() -> str:
    """The vendored axe-core, refused unless it is the file the README pins."""
    pinned = re.search(r"sha256 ([0-9a-f]{64})", (VENDOR / "README.md").read_text())
    assert pinned, "tests/e2e/vendor/README.md gives no sha256 for axe.min.js"
    data = AXE.read_bytes()
    got = hashlib.sha256(data).hexdigest()
    assert got == pinned.group(1), f"axe.min.js is not the pinned file: sha256 {got}"
    return data.decode("utf-8")


def violations(page, impacts=IMPACTS) -> list[dict]:
    """axe-core's violations of ``impacts`` on the page as it is now."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(content=_axe_source())
    found = page.evaluate(
        """async () => {
          const r = await axe.run(document, { resultTypes: ['violations'] });
          return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map((n) => ({ target: n.target.join(' '), summary: n.failureSummary })) }));
        }"""
    )
    return [v for v in found if v["impact"] in impacts]


def readable(found: list[dict]) -> str:
    """Violations as lines: the rule, its impact, what it asks and where (at most 5)."""
    lines = []
    for v in found:
        lines.append(f"{v['id']} ({v['impact']}, {len(v['nodes'])}×): {v['help']}")
        for n in v["nodes"][:5]:
            summary = " ".join((n["summary"] or "").split())
            lines.append(f"    {n['target']}: {summary[:200]}")
    return "\n".join(lines)


def axe_check(page, where: str = "") -> None:
    """Fail on any serious or critical axe-core violation, listed readably."""
    found = violations(page)
    assert not found, f"axe-core on {where or page.url}:\n{readable(found)}"


def headings(page) -> list[str]:
    """The texts of the page's top-level headings (h1)."""
    return page.eval_on_selector_all("h1", "(hs) => hs.map((h) => h.textContent.trim())")
