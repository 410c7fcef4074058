"""Starts the desktop app: QApplication, theme, the worker loop, the Container built on it, the main window."""

from __future__ import annotations

import gc
import logging
import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from PySide6.QtCore import QCoreApplication, QEventLoop, Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from app.gui.approver import GuiApprover
from app.gui.deferred import DeferredBackend
from app.gui.mcp_user import GuiMcpUser
from domain.errors import PalimpsestError
from ui.backend import ChatBackend
from ui.signals import binding_problem
from ui.theme import Theme, current_theme, palette_for, stylesheet_for
from ui.widgets.main_window import MainWindow
from ui.worker import AsyncWorker

if TYPE_CHECKING:
    from app.container import Container

log = logging.getLogger(__name__)


def ensure_application(argv: list[str]) -> QApplication:
    """The QApplication (created once), styled with Fusion and the system's light or dark theme."""
    existing = QCoreApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(argv)
    app.setApplicationName("Palimpsest")
    app.setOrganizationName("Palimpsest")
    app.setStyle("Fusion")
    apply_theme(app)
    return app


def apply_theme(app: QApplication, window: MainWindow | None = None, theme: Theme | None = None) -> None:
    """Applies the given theme, by default the one matching the system's color scheme."""
    theme = theme or current_theme()
    app.setPalette(palette_for(theme))
    app.setStyleSheet(stylesheet_for(theme))
    if window is not None:
        window.set_theme(theme)


@dataclass
class Running:
    """A built window with what must be closed after it."""

    window: MainWindow
    worker: AsyncWorker
    container: Container | None
    holder: dict[str, Any] | None = None

    def close(self) -> None:
        """Stops the worker and releases the database (on the worker thread that used it)."""
        self.window.chat_vm.stop()
        container = self.container or (self.holder or {}).get("container")
        if container is not None:
            async def close_container() -> None:
                try:
                    await container.aclose_adapters()
                finally:
                    container.close()

            try:
                self.worker.run_sync(close_container, timeout=10)
            except Exception:  # shutting down; the OS reclaims the file handles
                log.warning("could not close the database cleanly", exc_info=True)
        self.worker.shutdown()


def keep_out_of_collections() -> None:
    """Once per process, moves every object alive now (modules, classes, Qt wrappers, the Container: 100,000 and
    more) out of the garbage collector's reach. A full collection then scans only newer objects: when the worker
    reads a 20,000-message session, it takes about 8 ms instead of 45 ms, during which the GUI thread cannot run."""
    if not _FROZEN:
        _FROZEN.append(True)
        gc.freeze()


_FROZEN: list[bool] = []
GIL_SWITCH_SECONDS = 0.001


def share_the_gil() -> None:
    """While the worker thread runs Python (reading a long conversation, estimating its context), the GUI thread waits
    for the GIL before each of its timers, layouts and paints: Python's default lets the worker keep it 5 ms at a time,
    this 1 ms (bench.gui_branches measures the pauses)."""
    sys.setswitchinterval(GIL_SWITCH_SECONDS)


def build_window(app: QApplication, make_backend: Callable[[], tuple[ChatBackend, Container | None]] | None = None
                 ) -> Running:
    """Builds the Container on the worker thread (all disk I/O stays off the GUI thread) and the window."""
    share_the_gil()
    worker = AsyncWorker()
    holder: dict[str, tuple[ChatBackend, Container | None]] = {}
    approver = GuiApprover()  # asks before a tool's request other than GET/HEAD
    mcp_user = GuiMcpUser(approver)  # an MCP server's question or sampling request: asked in a dialog

    async def build() -> None:
        if make_backend is not None:
            holder["made"] = make_backend()
        else:
            from app.container import Container
            from app.gui.bridge import ContainerBackend

            container = Container.build(approver=approver)
            container.mcp.user = mcp_user
            holder["made"] = (ContainerBackend(container), container)

    try:
        worker.run_sync(build, timeout=60)
    except BaseException:
        worker.shutdown()
        raise
    backend, container = holder["made"]
    window = MainWindow(backend, worker, current_theme())
    keep_out_of_collections()
    approver.window = window
    app.styleHints().colorSchemeChanged.connect(lambda _scheme: apply_theme(app, window))
    return Running(window, worker, container)


def build_window_deferred(app: QApplication) -> Running:
    """Shows the window at once; the worker's first task builds the Container (SDK imports, database, migrations)."""
    share_the_gil()
    worker = AsyncWorker()
    backend = DeferredBackend()
    holder: dict[str, Any] = {}
    approver = GuiApprover()  # asks before a tool's request other than GET/HEAD
    mcp_user = GuiMcpUser(approver)  # an MCP server's question or sampling request: asked in a dialog

    async def build() -> None:
        from app.container import Container
        from app.gui.bridge import ContainerBackend

        try:
            container = Container.build(approver=approver)
            container.mcp.user = mcp_user
        except BaseException as error:
            backend.fail(error)
            raise
        holder["container"] = container
        keep_out_of_collections()  # the SDKs, SQLAlchemy and the store are loaded now
        backend.set(ContainerBackend(container))

    window = MainWindow(cast(ChatBackend, backend), worker, current_theme())
    approver.window = window
    app.styleHints().colorSchemeChanged.connect(lambda _scheme: apply_theme(app, window))
    running = Running(window, worker, None, holder)

    def failed(error: Exception) -> None:
        message = error.message if isinstance(error, PalimpsestError) else f"{type(error).__name__}: {error}"
        QMessageBox.critical(window, "Palimpsest cannot open its data", message)
        app.exit(1)

    worker.call(build, lambda _: None, failed)
    return running


def run_gui(argv: list[str]) -> int:
    """Runs the desktop app until its window closes; returns the exit status."""
    problem = binding_problem()
    if problem is not None:
        print(problem, file=sys.stderr)
        return 1
    app = ensure_application(argv)
    running = build_window_deferred(app)
    running.window.show()
    running.window.start()
    return run_until_closed(app, running)


def run_until_closed(app: QApplication, running: Running) -> int:
    """Runs the event loop until the window closes or SIGTERM / SIGHUP arrives (handled like closing the window:
    the reply streaming now is stopped and kept, then everything is released); returns the exit status."""
    received: list[int] = []

    def stop(signum: int, _frame: object) -> None:
        received.append(signum)
        app.quit()

    previous = {}
    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is not None:
            previous[signum] = signal.signal(signum, stop)
    wake = QTimer()
    wake.timeout.connect(lambda: None)  # Python runs its signal handlers only when it gets control back from Qt
    wake.start(200)
    try:
        code = int(app.exec())
    finally:
        wake.stop()
        running.close()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return 128 + received[0] if received else code


def wait_until(app: QApplication, ready: Callable[[], bool], timeout: float = 20.0) -> bool:
    """Processes events until ready() or the timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
        if ready():
            return True
        time.sleep(0.005)
    return ready()


def render_screenshot(path: str, session_id: str | None) -> int:
    """Renders the main window (1280x800, offscreen) with the real data under PALIMPSEST_HOME into a PNG."""
    if not os.environ.get("QT_QPA_PLATFORM") and sys.platform.startswith("linux") and not os.environ.get("DISPLAY"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    problem = binding_problem()
    if problem is not None:
        print(problem, file=sys.stderr)
        return 1
    target = Path(path)
    if not target.parent.exists():
        print(f"The folder {target.parent} does not exist.", file=sys.stderr)
        return 1
    app = ensure_application([sys.argv[0] if sys.argv else "palimpsest"])
    try:
        running = build_window(app)
    except PalimpsestError as error:
        print(error.message, file=sys.stderr)
        return 1
    window = running.window
    try:
        window.resize(1280, 800)
        window.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        window.show()
        window.start()
        ok = wait_until(app, lambda: not window.app_vm.state.loading and not window.sessions_vm.state.loading)
        if session_id:
            known = any(s.id == session_id for s in window.sessions_vm.state.sessions)
            if not known:
                print(f"No session named {session_id!r}. List them with: palimpsest sessions list", file=sys.stderr)
                return 1
            window.sessions_vm.select(session_id)
            ok = wait_until(app, lambda: window.chat_vm.state.session is not None
                            and not window.chat_vm.state.loading and window.chat_vm.state.context is not None)
        wait_until(app, lambda: False, timeout=0.3)  # let layouts and scrolling settle
        if not window.grab().save(str(target)):
            print(f"Could not write the PNG to {target}.", file=sys.stderr)
            return 1
        if not ok:
            print("Warning: the window had not finished loading when it was captured.", file=sys.stderr)
        return 0
    finally:
        running.close()
