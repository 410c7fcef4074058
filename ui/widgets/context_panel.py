"""The context panel the gauge opens: where the next request's tokens go, the compaction threshold, the window's
source and the warnings, plus the conversation's totals."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtWidgets import QCheckBox, QFrame, QGridLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from domain.events import ContextStatus
from ui.backend import SessionMcpServer, UsageSummary
from ui.error_text import MODELS_PAGE, place
from ui.signals import emit

SOURCES = {"registry": "from Palimpsest's model list", "provider_api": "reported by the provider",
           "learned_from_error": "learned from the provider's overflow error", "user": "set by you",
           "server": "reported by the server",
           "guessed_from_usage": "guessed from the server's reported prompt sizes"}
# windows the panel offers to undo ("Use the automatic window"): set by the user or inferred by the app
UNDOABLE_SOURCES = frozenset({"learned_from_error", "guessed_from_usage", "user"})
AUTOMATIC_WINDOW = "Use the automatic window"


def percent_text(status: ContextStatus) -> str | None:
    """The share of the window the next request takes, as `sessions context --json` gives it (ContextStatus.percent,
    one decimal; "73.5%", "25%"); None when the window is unknown. The gauge and its panel both show this text."""
    return f"{status.percent:g}%" if status.percent is not None else None


def panel_rows(status: ContextStatus) -> list[tuple[str, str]]:
    """(label, value) lines: the breakdown, the total, the threshold and the window. The breakdown's rows add up to
    the total (meter.measure_context shares the calibrated total out over them)."""
    b = status.breakdown
    window = status.window
    rows = [("System prompt", f"{b.system:,}"), ("Summary", f"{b.summary:,}"), ("Messages", f"{b.messages:,}"),
            ("Attachments", f"{b.attachments:,}"), ("Tool results", f"{b.tool_results:,}"),
            ("Tool definitions", f"{b.tools:,}"), ("Reasoning sent back", f"{b.reasoning:,}")]
    if b.web_search:
        rows.append(("Web search results", f"{b.web_search:,}"))
    share = percent_text(status)
    percent = f"  ({share})" if share else ""
    rows.append(("Total", f"{status.used:,} of {window:,} tokens{percent}" if window else f"{status.used:,} tokens"))
    if status.threshold:
        share = f" ({100 * status.threshold / window:.0f}% of the window)" if window else ""
        rows.append(("Compacts at", f"{status.threshold:,} tokens{share}"))
    if window:
        rows.append(("Window", f"{window:,} tokens"))
    if status.input_limit and (not window or status.input_limit < window):
        rows.append(("Input limit", f"{status.input_limit:,} tokens"))
    return rows


def window_note(status: ContextStatus) -> str | None:
    """Where the window comes from, as a line under the rows (wrapped: the longer sources do not fit in a row)."""
    if not status.window:
        return None
    source = SOURCES.get(status.window_source or "", status.window_source or "")
    guess = " It is a guess: set the real one in Settings › Models." if status.window_is_guess else ""
    return (f"The window is {source}." if source else "") + guess or None


class ContextPanel(QFrame):
    """A popup under the gauge; closes on a click elsewhere or Esc. Its MCP server boxes turn a server on or off for
    this conversation."""

    mcp_server_toggled = Signal(str, bool)  # server name, on
    automatic_window_requested = Signal()  # "Use the automatic window" was pressed
    settings_requested = Signal(str)  # a Settings page to open (the window of an unknown or guessed model)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Popup)
        self.setObjectName("PickerPopup")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setMinimumWidth(340)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(14, 12, 14, 12)
        self._layout.setSpacing(8)

    def show_status(self, status: ContextStatus | None, usage: UsageSummary | None, compactions: int,
                    servers: tuple[SessionMcpServer, ...] = ()) -> None:
        """Rebuilds the panel's content."""
        while self._layout.count():
            item = self._layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self._label("<b>Context sent with the next message</b>")
        if status is None:
            self._label("Estimated once a model is chosen and the conversation is loaded.", "Muted")
        else:
            grid_host = QWidget(self)
            grid = QGridLayout(grid_host)
            grid.setContentsMargins(0, 0, 0, 0)
            grid.setHorizontalSpacing(18)
            grid.setVerticalSpacing(3)
            for i, (name, value) in enumerate(panel_rows(status)):
                grid.addWidget(QLabel(name, grid_host), i, 0)
                number = QLabel(value, grid_host)
                number.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                grid.addWidget(number, i, 1)
            self._layout.addWidget(grid_host)
            note = window_note(status)
            if note:
                self._label(note, "Muted")
            for warning in status.warnings:
                self._label(warning, "Warning")
            if status.model_id and (status.window is None or status.window_is_guess):
                fix = QPushButton(f"Set the window in {place(MODELS_PAGE)}…", self)
                fix.clicked.connect(lambda: emit(self.settings_requested, MODELS_PAGE))
                self._layout.addWidget(fix)
            if status.window_source in UNDOABLE_SOURCES:
                button = QPushButton(AUTOMATIC_WINDOW, self)
                button.setToolTip("Forget this window: use the one Palimpsest's model list, the provider or the "
                                  "server gives")
                button.clicked.connect(lambda: emit(self.automatic_window_requested))
                self._layout.addWidget(button)
        if servers:
            self._label("MCP servers in this conversation (their tools' definitions count above)", "Muted")
            for server in servers:
                box = QCheckBox(f"{server.name} — {server.tools} tool{'' if server.tools == 1 else 's'}", self)
                box.setChecked(server.enabled)
                box.toggled.connect(lambda on, name=server.name: emit(self.mcp_server_toggled, name, on))
                self._layout.addWidget(box)
        totals = f"Compactions so far: {compactions}"
        if usage is not None:
            cost = f"${usage.cost_usd:.4f}" if usage.cost_usd is not None else "unknown for this model"
            totals += (f"<br>This conversation: input {usage.input_tokens:,} · output {usage.output_tokens:,} · "
                       f"cache reads {usage.cache_read_tokens:,} tokens<br>Cost: {cost}")
        self._label(totals, "Muted")
        self.adjustSize()

    def _label(self, text: str, name: str | None = None) -> QLabel:
        label = QLabel(text, self)
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.RichText if "<" in text else Qt.TextFormat.PlainText)
        if name:
            label.setObjectName(name)
        self._layout.addWidget(label)
        return label

    def texts(self) -> list[str]:
        """Every line the panel shows (for tests and accessibility)."""
        return [label.text() for label in self.findChildren(QLabel) if not label.isHidden()]

    def popup_under(self, anchor: QWidget) -> None:
        """Shows the panel below `anchor`, right-aligned with it and kept on its screen."""
        self.adjustSize()
        corner = anchor.mapToGlobal(QPoint(anchor.width(), anchor.height() + 4))
        x, y = corner.x() - self.width(), corner.y()
        screen = anchor.screen().availableGeometry() if anchor.screen() is not None else None
        if screen is not None:
            x = max(screen.left(), min(x, screen.right() - self.width()))
            y = min(y, screen.bottom() - self.height())
        self.move(x, y)
        self.show()
