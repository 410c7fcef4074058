"""An S3-compatible remote (AWS, MinIO, Backblaze B2, Cloudflare R2) through boto3: a PutObject is whole or absent;
If-None-Match: * keeps a name from being written twice."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from domain.sync.errors import RemoteError, RemoteMissing


def split_s3_url(url: str) -> tuple[str, str]:
    """(bucket, prefix ending in / or empty) of s3://BUCKET/PREFIX."""
    parts = urlsplit(url)
    if parts.scheme != "s3" or not parts.netloc:
        raise RemoteError(f"An S3 remote is s3://BUCKET/PREFIX, not {url!r}.")
    prefix = parts.path.strip("/")
    return parts.netloc, prefix + "/" if prefix else ""


class S3Remote:
    """Objects under s3://BUCKET/PREFIX/."""

    def __init__(self, url: str, endpoint: str | None, access_key: str | None, secret_key: str | None) -> None:
        try:
            import boto3
            from botocore.config import Config
        except ImportError as exc:  # pragma: no cover - an install without the sync extra
            raise RemoteError("S3 sync needs boto3: pip install boto3") from exc
        self.bucket, self.prefix = split_s3_url(url)
        self._client: Any = boto3.client(
            "s3", endpoint_url=endpoint, aws_access_key_id=access_key, aws_secret_access_key=secret_key,
            region_name=os.environ.get("AWS_DEFAULT_REGION", "us-east-1"),
            config=Config(retries={"max_attempts": 3}, connect_timeout=20, read_timeout=60))
        from botocore.exceptions import BotoCoreError, ClientError

        self._errors = (BotoCoreError, ClientError)

    def describe(self) -> str:
        return f"S3 s3://{self.bucket}/{self.prefix}"

    def _fail(self, what: str, exc: Exception) -> RemoteError:
        return RemoteError(f"The S3 remote s3://{self.bucket}/{self.prefix} failed {what} ({exc}).")

    def list(self, prefix: str) -> Sequence[str]:
        names: list[str] = []
        try:
            for page in self._client.get_paginator("list_objects_v2").paginate(
                    Bucket=self.bucket, Prefix=self.prefix + prefix):
                names += [item["Key"][len(self.prefix):] for item in page.get("Contents", [])]
        except self._errors as exc:
            raise self._fail("listing", exc) from exc
        return sorted(names)

    def get(self, name: str) -> bytes:
        from botocore.exceptions import ClientError

        try:
            body: bytes = self._client.get_object(Bucket=self.bucket, Key=self.prefix + name)["Body"].read()
            return body
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                raise RemoteMissing(f"The S3 remote has no {name}.") from exc
            raise self._fail(f"reading {name}", exc) from exc
        except self._errors as exc:
            raise self._fail(f"reading {name}", exc) from exc

    def delete(self, name: str) -> None:
        try:
            self._client.delete_object(Bucket=self.bucket, Key=self.prefix + name)
        except self._errors as exc:
            raise self._fail(f"deleting {name}", exc) from exc

    def sweep(self, folder: str) -> int:
        return 0  # a PutObject is whole or absent: nothing is written aside

    def put(self, name: str, data: bytes, scratch: str | None = None) -> bool:
        from botocore.exceptions import ClientError

        try:
            self._client.put_object(Bucket=self.bucket, Key=self.prefix + name, Body=data, IfNoneMatch="*")
            return True
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("PreconditionFailed", "ConditionalRequestConflict"):
                return False
            raise self._fail(f"writing {name}", exc) from exc
        except self._errors as exc:
            raise self._fail(f"writing {name}", exc) from exc
