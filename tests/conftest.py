"""Test isolation: shipped tiktoken files, no provider env vars, a temp PALIMPSEST_HOME, in-memory keyring, no GUI."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakeservers.tokens import use_shipped_encodings

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["PYTHON_KEYRING_BACKEND"] = "tests.memory_keyring.MemoryKeyring"
use_shipped_encodings()  # tiktoken reads tests/tokenizers/, here and in every subprocess a test spawns: no network

PROVIDER_ENV_VARS = (
    "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN",
    "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID",
    "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GOOGLE_GENAI_USE_VERTEXAI",
    "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION",
)


@pytest.fixture(autouse=True)
def _isolated_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every test gets its own data folder, an empty in-memory keyring and no provider variables."""
    from tests.memory_keyring import MemoryKeyring

    for name in PROVIDER_ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PALIMPSEST_HOME", str(tmp_path / "palimpsest-home"))
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "tests.memory_keyring.MemoryKeyring")
    monkeypatch.setenv("PALIMPSEST_TOOL_ALLOW_HOSTS", "127.0.0.1")  # http_request may reach the tests' page servers
    MemoryKeyring.clear()
    yield
    MemoryKeyring.clear()


# The longest files (measured with --durations, one file at a time, load ~3 on 2 cores), run first: the suite runs
# one file per pytest-xdist worker (tests/__main__.py), and a long file left for last would keep one worker busy
# while the other idles. In-process CLI runs are short since tests/cli/harness.py freezes the imported modules out
# of the collector's reach (test_commands.py, the sync files and test_merge_rules.py left this list then).
LONGEST_FIRST = (
    "tests/cli/test_long_session_e2e.py",  # ~85 s: every command a real process
    "tests/cli/test_one_turn_at_a_time.py",  # ~55 s
    "tests/mcp/test_cli_process_groups.py",  # ~48 s: two servers wait out the 30 s start limit
    "tests/mcp/test_protocol_e2e.py",  # ~40 s
    "tests/cli/test_changes_wait_their_turn.py",  # ~32 s
    "tests/cli/test_key_redaction.py",  # 59 s in a -n 2 run at load ~5 (the others alone at load ~3)
    "tests/cli/test_attachment_counts_cli.py",  # ~29 s
    "tests/cli/test_imported_continuation_sources.py",  # ~29 s
    "tests/mcp/test_tasks.py",  # 47 s in that -n 2 run
    "tests/cli/test_network_error_output.py",  # 43 s in that -n 2 run
    "tests/cli/test_fast_start.py",  # 38 s in that -n 2 run
    "tests/mcp/test_oauth.py",  # ~25 s
    "tests/mcp/test_done_when.py",  # ~25 s
    "tests/providers/test_reasoning_rotation_e2e.py",  # ~22 s
    "tests/cli/test_turn_imports.py",  # 30 s in that -n 2 run
    "tests/cli/test_commands.py",  # ~21 s
    "tests/cli/test_server_windows_cli.py",  # ~17 s
    "tests/cli/test_responses_session_e2e.py",  # ~15 s
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Moves the longest files to the front, keeping every other test in its collected order."""
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))
