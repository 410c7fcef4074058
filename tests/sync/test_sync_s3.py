"""Sync through a real S3-compatible server (moto's server mode) on 127.0.0.1, end to end through two devices' CLI."""

from __future__ import annotations

from pathlib import Path

from tests.sync.devices import Device
from tests.sync.scenario import run_scenario
from tests.sync.servers import S3_KEY, S3_SECRET, S3Server


def test_two_devices_converge_through_s3_after_offline_edits_on_both(tmp_path: Path) -> None:
    env = {"AWS_ACCESS_KEY_ID": S3_KEY, "AWS_SECRET_ACCESS_KEY": S3_SECRET}
    with S3Server() as server:
        a, b = Device(tmp_path, "a", env), Device(tmp_path, "b", env)
        run_scenario(a, b, ["s3", f"s3://{server.bucket}/people/alice", "--endpoint", server.endpoint])
        import boto3

        client = boto3.client("s3", endpoint_url=server.endpoint, aws_access_key_id=S3_KEY,
                              aws_secret_access_key=S3_SECRET, region_name="us-east-1")
        keys = [o["Key"] for o in client.list_objects_v2(Bucket=server.bucket)["Contents"]]
    assert "people/alice/palimpsest-sync.json" in keys and any("/devices/" in k for k in keys)


def test_the_s3_keys_go_to_the_keychain_not_the_database(tmp_path: Path) -> None:
    env = {"AWS_ACCESS_KEY_ID": S3_KEY, "AWS_SECRET_ACCESS_KEY": S3_SECRET}
    with S3Server() as server:
        a = Device(tmp_path, "a", env)
        a.ok("sync", "setup", "s3", f"s3://{server.bucket}/p", "--endpoint", server.endpoint)
    assert S3_SECRET in a.cli.keyring_file.read_text()
    assert all(S3_SECRET.encode() not in f.read_bytes() for f in a.home.rglob("*") if f.is_file())
