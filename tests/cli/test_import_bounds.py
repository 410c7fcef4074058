"""Import reads a bounded amount in bounded memory: an export (or a .zip's conversations.json) over the cap is
refused by its size before it is read, a zip member that understates its size is stopped as it is read, and a
large export is streamed conversation by conversation (its peak memory does not grow with the file)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from bench.load_memory import peak_import, write_export
from data.importing import export_file
from data.importing.export_file import CappedStream, ExportTooLarge
from tests.cli.harness import Cli


def _cli(tmp_path: Path) -> Cli:
    (tmp_path / "keychain").mkdir(exist_ok=True)
    return Cli(tmp_path / "home", tmp_path / "keychain" / "keys.json")


def test_a_zip_holding_more_json_than_the_cap_is_refused_before_it_is_read(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(export_file, "MAX_EXPORT_BYTES", 1_000_000)
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("conversations.json", "[" + " " * 5_000_000 + "]")
    assert bomb.stat().st_size < 50_000
    done = _cli(tmp_path).run("import", "chatgpt", str(bomb), subprocess_run=False)
    assert done.code == 1
    assert done.err.strip() == ("palimpsest: Cannot import: bomb.zip's conversations.json is 5.0 MB; an import reads "
                                "at most 1.0 MB. Nothing was imported.")


def test_a_stream_that_runs_past_the_cap_is_stopped_as_it_is_read() -> None:
    stream = CappedStream(io.BytesIO(b"x" * 10_000), "understated.json", 4_096)
    with pytest.raises(ExportTooLarge, match=r"understated\.json holds more than 4\.1 KB of JSON"):
        while stream.read(1_000):
            pass
    assert stream.count <= 5_000  # it stopped at the cap, it did not read on


def test_a_large_export_is_imported_in_bounded_memory(tmp_path: Path) -> None:
    export = tmp_path / "conversations.json"
    write_export(export, 48)  # over the 32 MB above which an export is streamed
    peak_mb, _seconds, code, last = peak_import(tmp_path / "home", "chatgpt", export)
    assert code == 0 and last.startswith("Imported 4"), last
    assert peak_mb < 150, f"importing a 48 MB export peaked at {peak_mb} MB"
