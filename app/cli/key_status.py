"""`palimpsest keys status`: which providers have a key and from where, answered without SQLAlchemy when it can be."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from app.cli.tables import table
from domain.models import Provider
from domain.usecases.api_key_status import KeyReport


def report_without_storage() -> KeyReport | None:
    """The report read straight from a current database (no Storage opened, so no SQLAlchemy imported), or None
    when the Storage must be opened first (a new, older or unseeded database)."""
    from data.db.direct_read import current_providers

    providers = current_providers()
    if providers is None:
        return None
    from data.keys import KeyringApiKeyStorage
    from domain.usecases.api_key_status import ApiKeyStatusUseCase

    return ApiKeyStatusUseCase(_Listed(providers), KeyringApiKeyStorage())()


def write_report(report: KeyReport, out: TextIO, err: TextIO) -> None:
    """The table of providers and key sources; the keychain's problem, if any, as a note on stderr."""
    rows = [(s.provider.id, s.provider.name, s.source or "none") for s in report.statuses]
    out.write(table(("PROVIDER", "NAME", "KEY FROM"), rows) + "\n")
    if report.keychain_problem:
        err.write(f"Note: {report.keychain_problem}\n")


class _Listed:
    """Providers already read."""

    def __init__(self, providers: Sequence[Provider]) -> None:
        self._providers = providers

    def list(self) -> Sequence[Provider]:
        return self._providers
