"""Faster construction of frozen, slotted dataclasses (events, commands, island states).

A frozen dataclass's generated ``__init__`` stores every field through
``object.__setattr__``, which finds the attribute through the type each time.
``quick_init`` gives the class an ``__init__`` with the same signature that stores
each field through its slot's descriptor instead: the same values in the same
slots, in about half the time. The engine builds hundreds of these objects per
turn, so this is a few per cent of a whole game. Instances stay frozen:
assigning a field still raises ``FrozenInstanceError``.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any, TypeVar

T = TypeVar("T")

_FACTORY = object()  # marks a parameter left to its default factory


def quick_init(cls: type[T]) -> type[T]:
    """Replace the generated ``__init__`` of frozen, slotted dataclass ``cls``."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__} is not a frozen dataclass with slots")
    namespace: dict[str, Any] = {"_FACTORY": _FACTORY}
    positional: list[str] = []
    keyword: list[str] = []
    body: list[str] = []
    fields: tuple[dataclasses.Field[Any], ...] = dataclasses.fields(cls)  # type: ignore[arg-type]
    for f in fields:
        name = f.name
        namespace[f"_set_{name}"] = cls.__dict__[name].__set__
        has_default = f.default is not dataclasses.MISSING
        has_factory = f.default_factory is not dataclasses.MISSING
        if has_default:
            namespace[f"_default_{name}"] = f.default
        if has_factory:
            namespace[f"_factory_{name}"] = f.default_factory
        if not f.init:
            if has_default:
                body.append(f"_set_{name}(self, _default_{name})")
            elif has_factory:
                body.append(f"_set_{name}(self, _factory_{name}())")
            continue
        param = name
        if has_default:
            param = f"{name}=_default_{name}"
        elif has_factory:
            param = f"{name}=_FACTORY"
            body.append(f"if {name} is _FACTORY: {name} = _factory_{name}()")
        (keyword if f.kw_only else positional).append(param)
        body.append(f"_set_{name}(self, {name})")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    signature = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    source = f"def __init__({signature}) -> None:\n" + "".join(
        f"    {line}\n" for line in body or ["pass"]
    )
    exec(source, namespace)
    init = namespace["__init__"]
    if _shape(init) != _shape(cls.__init__):  # e.g. an InitVar, which this does not handle
        raise TypeError(f"{cls.__name__}: cannot rebuild its __init__")
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    cls.__init__ = init  # type: ignore[method-assign]
    return cls


def _shape(function: Any) -> list[tuple[str, Any]]:
    return [(p.name, p.kind) for p in inspect.signature(function).parameters.values()]
