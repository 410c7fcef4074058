"""Only a regular file is opened as an attachment: a pipe or a device is refused before it is read (a FIFO used to
hang `chat -a` for ever, /dev/zero to read until MemoryError)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from data.attachments.files import AttachmentFiles
from data.attachments.intake import AttachmentIntake

ROOT = Path(__file__).resolve().parents[2]
TAKE = ("import sys; from pathlib import Path; from data.attachments.files import AttachmentFiles;"
        "from data.attachments.intake import AttachmentIntake, AttachmentRejected\n"
        "try:\n    AttachmentIntake(AttachmentFiles(Path(sys.argv[2]))).from_path(Path(sys.argv[1]))\n"
        "except AttachmentRejected as exc:\n    print(exc)\n")


def _take_in_a_process(path: Path, store: Path) -> str:
    """The refusal printed by a process taking `path` in; fails (instead of hanging) when it does not end."""
    done = subprocess.run([sys.executable, "-c", TAKE, str(path), str(store)], cwd=ROOT, capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.skipif(
    not hasattr(os, "mkfifo"),
    reason="this platform has no named pipes (os.mkfifo is POSIX-only), so there is no FIFO to refuse",
)
def test_a_fifo_is_refused_without_being_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    said = _take_in_a_process(fifo, tmp_path / "store")
    assert said == f"{fifo} is not a regular file (a pipe, a device or a socket); only saved files can be attached."


@pytest.mark.skipif(
    not Path("/dev/zero").exists(),
    reason="this platform has no /dev/zero (an endless device exists only on POSIX systems)",
)
def test_an_endless_device_is_refused_without_being_read(tmp_path: Path) -> None:
    said = _take_in_a_process(Path("/dev/zero"), tmp_path / "store")
    assert said.startswith("/dev/zero is not a regular file")


def test_a_regular_file_is_still_read_whole(tmp_path: Path) -> None:
    source = tmp_path / "notes.txt"
    source.write_text("a few words\n")
    taken = AttachmentIntake(AttachmentFiles(tmp_path / "store")).from_path(source)
    assert taken.text_chars == len("a few words\n")
