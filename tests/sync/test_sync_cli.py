"""`palimpsest sync setup | now | status | off` as a person sees them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.sync.devices import Device


def test_status_says_where_when_and_what_waits_and_off_forgets_it(tmp_path: Path) -> None:
    a = Device(tmp_path, "a")
    not_yet = a.run("sync", "now")
    assert not_yet.code == 1 and "Sync is not set up" in not_yet.err and "Traceback" not in not_yet.err
    a.ok("sync", "setup", "folder", str(tmp_path / "remote"))
    before = json.loads(a.ok("sync", "status", "--json").out)
    assert before["kind"] == "folder" and before["location"] == str(tmp_path / "remote")
    assert before["last"] is None and before["waiting_changes"] > 0 and not before["encrypted"]
    a.sync()
    after = json.loads(a.ok("sync", "status", "--json").out)
    assert after["waiting_changes"] == 0 and after["last"]["sent"] == before["waiting_changes"]
    assert "last sync: 20" in a.ok("sync", "status").out
    a.ok("sync", "off")
    assert a.run("sync", "status").code == 1


def test_setup_refuses_a_remote_that_is_not_one(tmp_path: Path) -> None:
    a = Device(tmp_path, "a")
    for args, words in ((("s3", "my-bucket/prefix"), "s3://BUCKET/PREFIX"), (("webdav", "ftp://x"), "http")):
        refused = a.run("sync", "setup", *args)
        assert refused.code == 1 and words in refused.err, refused.err
    file = tmp_path / "a-file"
    file.write_text("not a folder")
    refused = a.run("sync", "setup", "folder", str(file / "inside"))
    assert refused.code == 1 and "cannot" in refused.err.lower(), refused.err
