"""The schema revisions this version of Palimpsest ships, read from the migration files without importing Alembic.

Importing Alembic takes about a fifth of a second; opening a database that is already at the head revision (every
start but the first after an upgrade) needs only these ids. tests/data/test_schema_version.py holds them equal to
what Alembic itself reads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib.util import find_spec
from pathlib import Path

_REVISION = re.compile(r"^revision\s*(?::[^=\n]*)?=\s*(['\"])(.+?)\1", re.MULTILINE)
_DOWN_REVISION = re.compile(r"^down_revision\s*(?::[^=\n]*)?=(.*)$", re.MULTILINE)
_QUOTED = re.compile(r"(['\"])(.+?)\1")


@dataclass(frozen=True)
class ShippedRevisions:
    """Every shipped revision id and the single head they lead to."""

    known: frozenset[str]
    head: str


@cache
def shipped_revisions() -> ShippedRevisions | None:
    """The shipped revisions, or None when the revision files cannot be read this way (then ask Alembic)."""
    spec = find_spec("migrations")
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    return revisions_in(Path(locations[0]) / "versions") if locations else None


def revisions_in(folder: Path) -> ShippedRevisions | None:
    """The revisions of the Alembic revision files in a folder; None unless they form one line to a single head."""
    known: set[str] = set()
    parents: set[str] = set()
    try:
        for path in sorted(folder.glob("*.py")):
            if path.name.startswith(("__init__", ".#")):
                continue
            text = path.read_text(encoding="utf-8")
            revision, down = _REVISION.search(text), _DOWN_REVISION.search(text)
            if revision is None or down is None:
                return None
            known.add(revision.group(2))
            parents.update(quoted.group(2) for quoted in _QUOTED.finditer(down.group(1)))
    except (OSError, UnicodeDecodeError):
        return None
    heads = known - parents
    if len(heads) != 1 or not parents <= known:
        return None
    return ShippedRevisions(frozenset(known), heads.pop())
