"""A frozen dataclass copied with some fields changed, without running its __init__ again: dataclasses.replace
does, one object.__setattr__ per field (~15 µs for a Message of 28 fields, a few each turn); this copies the fields'
values at C speed. Classes it cannot copy so (slots, __post_init__, fields outside __init__, cached properties) go
through replace."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, TypeVar

T = TypeVar("T")
_FIELDS: dict[type, frozenset[str] | None] = {}  # per class: its field names, or None when replace must do it


def copied(obj: T, **changes: Any) -> T:
    """What dataclasses.replace(obj, **changes) returns, for a frozen dataclass instance."""
    cls = type(obj)
    try:
        names = _FIELDS[cls]
    except KeyError:
        names = _FIELDS[cls] = _plain_fields(cls)
    if names is None or not changes.keys() <= names:
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    new = object.__new__(cls)
    state = new.__dict__
    state.update(obj.__dict__)
    state.update(changes)
    return new


def _plain_fields(cls: type) -> frozenset[str] | None:
    """The field names of a frozen dataclass whose instances hold exactly their fields, else None."""
    if not dataclasses.is_dataclass(cls) or hasattr(cls, "__post_init__"):
        return None
    params = getattr(cls, "__dataclass_params__", None)
    fields = dataclasses.fields(cls)
    if params is None or not params.frozen or any(not f.init for f in fields):
        return None
    for klass in cls.__mro__:
        if "__slots__" in vars(klass) and klass is not object:
            return None
        if any(isinstance(v, functools.cached_property) for v in vars(klass).values()):
            return None
    return frozenset(f.name for f in fields)
