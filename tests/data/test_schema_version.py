"""The shipped schema revisions read without Alembic, and opening a current database without importing it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import migrations
from data.db.schema_version import revisions_in, shipped_revisions
from data.storage import Storage

ROOT = Path(__file__).resolve().parents[2]


def test_the_revisions_read_from_the_files_are_the_ones_alembic_reads() -> None:
    shipped = shipped_revisions()
    assert shipped is not None
    assert shipped.known == migrations.known_revisions()
    assert shipped.head == migrations.head_revision()


def _revision(folder: Path, name: str, body: str) -> None:
    (folder / name).write_text(f'"""A revision."""\n\nfrom alembic import op\n\n{body}\n\n\ndef upgrade() -> None:\n'
                               "    op.execute('SELECT 1')\n")


def test_annotated_ids_and_a_merge_revision_are_read(tmp_path: Path) -> None:
    _revision(tmp_path, "a.py", 'revision: str = "a"\ndown_revision: str | None = None')
    _revision(tmp_path, "b.py", "revision = 'b'\ndown_revision = 'a'")
    _revision(tmp_path, "c.py", 'revision = "c"\ndown_revision = "a"')
    _revision(tmp_path, "d.py", 'revision = "d"\ndown_revision = ("b", "c")')
    (tmp_path / "__init__.py").write_text("")
    shipped = revisions_in(tmp_path)
    assert shipped is not None
    assert shipped.known == {"a", "b", "c", "d"} and shipped.head == "d"


def test_two_heads_or_an_unreadable_file_leave_the_answer_to_alembic(tmp_path: Path) -> None:
    _revision(tmp_path, "a.py", 'revision = "a"\ndown_revision = None')
    _revision(tmp_path, "b.py", 'revision = "b"\ndown_revision = "a"')
    _revision(tmp_path, "c.py", 'revision = "c"\ndown_revision = "a"')
    assert revisions_in(tmp_path) is None
    (tmp_path / "c.py").write_text("x = 1\n")
    assert revisions_in(tmp_path) is None
    (tmp_path / "c.py").unlink()
    _revision(tmp_path, "e.py", 'revision = "e"\ndown_revision = "missing"')
    assert revisions_in(tmp_path) is None


def test_opening_a_database_already_at_head_does_not_import_alembic(tmp_path: Path) -> None:
    Storage.open(tmp_path).close()  # created and migrated: Alembic is needed once
    probe = ("import sys\nfrom pathlib import Path\nfrom data.storage import Storage\n"
             f"Storage.open(Path({str(tmp_path)!r})).close()\n"
             "print(sorted(m for m in sys.modules if m == 'alembic' or m.startswith('alembic.')))")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", probe], env=env, cwd=ROOT, capture_output=True, text=True,
                         check=True, timeout=60).stdout
    assert out.strip() == "[]"
