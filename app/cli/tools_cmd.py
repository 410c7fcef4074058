"""`palimpsest tools ...`: the hosts on your own machine or network that http_request may reach anyway."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, TextIO

from data.tools.net_guard import ALLOW_HOSTS_ENV
from domain.usecases.save_tool_settings import AllowHostUseCase, DisallowHostUseCase, SaveToolSettingsUseCase

if TYPE_CHECKING:
    from app.container import Container

REFUSED = ("http_request refuses addresses on this machine and your network (loopback, private, link-local) "
           "unless they are listed here.")


def environment_hosts() -> list[str]:
    """The hosts PALIMPSEST_TOOL_ALLOW_HOSTS adds on top of the stored ones (comma- or space-separated)."""
    return os.environ.get(ALLOW_HOSTS_ENV, "").replace(",", " ").split()


async def run_tools(c: Container, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Dispatches the tools action."""
    if args.action == "allow-host":
        entry = AllowHostUseCase(c.settings)(args.host)
        out.write(f"Allowed {entry}: http_request may reach it (any port).\n")
    elif args.action == "disallow-host":
        entry = DisallowHostUseCase(c.settings)(args.host)
        out.write(f"Removed {entry} from the allowed hosts.\n")
        if entry in environment_hosts():
            err.write(f"Note: {ALLOW_HOSTS_ENV} still allows {entry} in this environment.\n")
    else:
        stored = SaveToolSettingsUseCase(c.settings).current().allowed_hosts
        for host in stored:
            out.write(f"{host}\n")
        for host in environment_hosts():
            out.write(f"{host}  (from {ALLOW_HOSTS_ENV})\n")
        if not stored and not environment_hosts():
            err.write(f"No allowed hosts. {REFUSED} Add one with: palimpsest tools allow-host HOST\n")
    return 0
