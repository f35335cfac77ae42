"""``quick_init``: the faster ``__init__`` builds exactly what the dataclass's would."""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import FrozenInstanceError, InitVar, dataclass, field

import pytest

from domain.commands import COMMAND_TYPES
from domain.events import EVENT_TYPES
from domain.frozen import quick_init
from domain.state import IslandState


def _example() -> type:
    @dataclass(frozen=True, slots=True)
    class Example:
        a: int
        b: tuple[str, ...]
        c: str = "R1"
        d: list[int] = field(default_factory=list)
        e: int = field(default=7, init=False)
        f: dict[str, int] | None = field(default=None, init=False, compare=False)
        g: bool = field(default=False, kw_only=True)

        def __post_init__(self) -> None:
            object.__setattr__(self, "f", {"a": self.a})

    return Example


def _values(obj: object) -> dict[str, object]:
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "args, kwargs",
    [((1, ("x",)), {}), ((2, ()), {"c": "R9", "d": [3], "g": True}), ((3, ("y", "z"), "R4"), {})],
)
def test_quick_init_builds_the_same_object_as_the_generated_init(
    args: tuple[object, ...], kwargs: dict[str, object]
) -> None:
    plain, quick = _example(), quick_init(_example())
    a, b = plain(*args, **kwargs), quick(*args, **kwargs)
    assert _values(a) == _values(b)
    assert repr(a).split("(", 1)[1] == repr(b).split("(", 1)[1]
    assert b.f == {"a": args[0]}  # __post_init__ ran


def test_quick_init_keeps_the_signature_and_the_default_factory_fresh() -> None:
    plain, quick = _example(), quick_init(_example())
    shape = [(p.name, p.kind) for p in inspect.signature(quick).parameters.values()]
    assert shape == [(p.name, p.kind) for p in inspect.signature(plain).parameters.values()]
    assert quick(1, ()).d is not quick(1, ()).d
    with pytest.raises(TypeError):
        quick(1)  # a required field is still required
    with pytest.raises(TypeError):
        quick(1, (), "R1", [], True)  # kw_only stays keyword-only


def test_objects_built_quickly_stay_frozen() -> None:
    isl = IslandState("tonga", (0, 0), 0, ((), (), ()))
    with pytest.raises(FrozenInstanceError):
        isl.tile = "o1"  # type: ignore[misc]


def test_quick_init_refuses_what_it_cannot_rebuild() -> None:
    @dataclass(frozen=True)
    class NoSlots:
        a: int

    @dataclass(frozen=True, slots=True)
    class WithInitVar:
        a: int
        b: InitVar[int]

        def __post_init__(self, b: int) -> None:
            pass

    with pytest.raises(TypeError):
        quick_init(NoSlots)
    with pytest.raises(TypeError):
        quick_init(WithInitVar)


@pytest.mark.parametrize("kind", [*EVENT_TYPES, *COMMAND_TYPES], ids=lambda t: t.__name__)
def test_every_event_and_command_is_built_through_its_slots(kind: type) -> None:
    # the dataclass's own __init__ is named "__create_fn__.<locals>.__init__"
    assert kind.__init__.__qualname__ == f"{kind.__qualname__}.__init__"
