"""The attachment replay benchmark runs end to end (quick mode): no error, nothing resent from beyond the window."""

from __future__ import annotations

from pathlib import Path

from bench.replay_attachments import main


def test_quick_attachment_replay_has_no_error_and_resends_nothing_old(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PALIMPSEST_TOOL_ALLOW_HOSTS", "127.0.0.1")
    assert main(["--quick", "--out", str(tmp_path)]) == 0
    report = (tmp_path / "replay_attachments.md").read_text()
    assert "| errors the user saw | 0 |" in report
    assert "| ... of them from deeper than the protected window (not in the newest message) | 0 |" in report
    assert "| spec.pdf | 0 |" in report and "| screen04.png |" in report
