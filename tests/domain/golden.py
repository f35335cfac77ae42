"""Golden game logs: whole games recorded as NDJSON under tests/data/.

Regenerate (only when a rules change is intended) with
``python -m tests.domain.golden``; the test then pins the new behaviour. Before
that, move the logs as they are to ``tests/data/history/<rules version>/``: they
are the recorded history, which must still replay as recorded (see
``tests/data/history/README.md``).
"""

from __future__ import annotations

import json
from pathlib import Path

from domain import position
from domain.serialization import encode
from domain.simulation import play

DATA = Path(__file__).resolve().parent.parent / "data"
GAMES = {
    "golden-4p-random.ndjson": dict(seed=7, players=4, bots="random"),
    "golden-2p-two-colours-greedy.ndjson": dict(
        seed=11, players=2, bots="greedy", two_colours_each=True
    ),
    "golden-6p-rody-random.ndjson": dict(
        seed=3, players=6, bots="random", free_orientation_after_first=True
    ),
    "golden-3p-greedy.ndjson": dict(seed=5, players=3, bots="greedy"),
}


def write() -> None:
    """Play the golden games and write their event logs and final positions."""
    DATA.mkdir(exist_ok=True)
    for name, params in GAMES.items():
        seed = int(params.pop("seed"))  # type: ignore[arg-type]
        players = int(params.pop("players"))  # type: ignore[arg-type]
        game = play(seed, players, **params)  # type: ignore[arg-type]
        params.update(seed=seed, players=players)
        lines = [json.dumps(encode(e), sort_keys=True) for e in game.events]
        (DATA / name).write_text("\n".join(lines) + "\n")
        (DATA / name.replace(".ndjson", ".final.json")).write_text(
            json.dumps(position.dump(game.state), sort_keys=True, indent=1) + "\n"
        )
        print(name, len(lines), "events", game.outcome.reason.value)


if __name__ == "__main__":
    write()
