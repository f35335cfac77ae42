"""Rules versions, and which rule change explains a recorded event a re-run no longer gives.

Events are facts: a game recorded under earlier rules replays exactly as it was
recorded. Re-running its commands under the current rules can give other events
where the rules changed; an auditor needs to know which command, which event,
how it differs, and whether a documented rule change accounts for it
(docs/rules.md, "Rule changes and recorded games").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain.tiles import OCEAN_TILES

ENGINE_VERSION = "1.2.1"  # keys snapshots and keyframes (position.FOLD_VERSION); see __init__
RULES_1 = "rules-1"
RULES_2 = "rules-2"
HISTORY = (RULES_1, RULES_2)  # oldest first; the last is the engine's
CURRENT = HISTORY[-1]
# what earlier engines wrote in the events' metadata for a version
ALIASES = {"rules.md R1-R25": RULES_1}

Data = dict[str, Any]


@dataclass(frozen=True)
class RuleSet:
    """What a rules version decides differently: the engine plays any of them, so a
    game recorded under earlier rules is re-run under the rules it was recorded with
    (where it must give its events exactly) and under today's (where differences are
    rule changes). Each flag is a change of docs/rules.md, "Rule changes"."""

    version: str
    colours_score_as_seats: bool  # R5: each colour scores as a seat (else: once per island)
    voyage_after_last_ocean: bool  # R21: the fleet sails on after the last ocean tile
    records_search_budget: bool  # R19 (b): a departure offered unproved says so


RULESETS = {
    RULES_1: RuleSet(RULES_1, False, False, False),
    RULES_2: RuleSet(RULES_2, True, True, True),
}
CURRENT_RULES = RULESETS[CURRENT]


def ruleset(recorded: str | None) -> RuleSet | None:
    """The rule set an event's metadata names (None if this engine does not know it)."""
    version = canonical(recorded)
    return RULESETS[version] if version is not None else None


def canonical(recorded: str | None) -> str | None:
    """The version id for what an event's metadata says (None if unknown)."""
    if recorded is None:
        return None
    name = ALIASES.get(recorded, recorded)
    return name if name in HISTORY else None


@dataclass(frozen=True)
class Difference:
    """Where a re-run's events first part from the recorded ones."""

    index: int  # in the command's events, from 0
    recorded: Data | None  # None: the re-run gives more events than were recorded
    rerun: Data | None  # None: the re-run stops before this recorded event
    # (where, recorded, re-run) for events of one type: ``scores[0].points`` and such
    fields: tuple[tuple[str, Any, Any], ...]

    def describe(self) -> str:
        """One line: the events' types, or the fields that differ."""
        if self.recorded is None or self.rerun is None:
            have = self.recorded or self.rerun
            assert have is not None
            side = "recorded" if self.rerun is None else "re-run"
            return f"only the {side} events go on, with {have['type']}"
        if self.recorded["type"] != self.rerun["type"]:
            return f"recorded {self.recorded['type']}, re-run {self.rerun['type']}"
        parts = [f"{name}: recorded {old!r}, re-run {new!r}" for name, old, new in self.fields]
        return f"{self.recorded['type']} differs in " + "; ".join(parts)


def first_difference(recorded: list[Data], rerun: list[Data]) -> Difference | None:
    """The first event at which ``rerun`` parts from ``recorded`` (None if equal)."""
    for i in range(max(len(recorded), len(rerun))):
        old = recorded[i] if i < len(recorded) else None
        new = rerun[i] if i < len(rerun) else None
        if old == new:
            continue
        fields: tuple[tuple[str, Any, Any], ...] = ()
        if old is not None and new is not None and old["type"] == new["type"]:
            fields = tuple(_paths(old, new, ""))
        return Difference(i, old, new, fields)
    return None


def _paths(old: Any, new: Any, at: str) -> list[tuple[str, Any, Any]]:
    """The innermost places where two JSON values differ, as ``scores[0].points``."""
    if isinstance(old, dict) and isinstance(new, dict):
        found = []
        for name in sorted(set(old) | set(new)):
            if old.get(name) != new.get(name):
                found += _paths(old.get(name), new.get(name), f"{at}.{name}" if at else name)
        return found
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        found = []
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            if a != b:
                found += _paths(a, b, f"{at}[{i}]")
        return found
    return [(at, old, new)]


def explained_by(recorded_rules: str | None, recorded: list[Data], diff: Difference) -> str | None:
    """Which documented rule change ``diff`` (today's re-run against the record) shows.

    Only names the change: whether the record is right is settled by re-running
    the command under the rules it was recorded under (``RULESETS``), where it must
    match exactly. rules-2 changed R5 (two-colour scores), R21 (the voyage after the
    last ocean tile) and R19 (b) (a departure offered because the search budget ran
    out says so).
    """
    version = canonical(recorded_rules)
    if version is None or version == CURRENT:
        return None
    if HISTORY.index(version) < HISTORY.index(RULES_2):
        for rule, applies in _RULES_2_CHANGES:
            if applies(recorded, diff):
                return f"{rule}, changed in {RULES_2}"
    return None


def _r5_scores(recorded: list[Data], diff: Difference) -> bool:
    """R5: the final scores of a two-colour game, each colour now scoring as a seat."""
    old, new = diff.recorded, diff.rerun
    if old is None or new is None or old["type"] != "GameEnded" or new["type"] != "GameEnded":
        return False
    two_colours = all(len(s["colours"]) == 2 for s in old["scores"])
    changed = {name.split("[")[0] for name, _, _ in diff.fields}
    return two_colours and changed <= {"scores", "winners", "tie_break"}


def _r21_last_ocean(recorded: list[Data], diff: Difference) -> bool:
    """R21: rules-1 lost the fleet on the last ocean tile it had just placed."""
    old, i = diff.recorded, diff.index
    if old is None or old["type"] != "FleetLostAtSea" or i == 0:
        return False
    placed = recorded[i - 1]
    return (
        placed["type"] == "TilePlaced"
        and placed["tile"] in OCEAN_TILES
        and placed["cell"] == old["cell"]
    )


def _r19_budget(recorded: list[Data], diff: Difference) -> bool:
    """R19 (b): the departure now records that its search reached the budget."""
    new = diff.rerun
    if new is None or new["type"] != "EmigrationStarted" or not new.get("search_exhausted"):
        return False
    return {name for name, _, _ in diff.fields} == {"search_exhausted", "search_budget"}


_RULES_2_CHANGES = (
    ("R5", _r5_scores),
    ("R21", _r21_last_ocean),
    ("R19", _r19_budget),
)
