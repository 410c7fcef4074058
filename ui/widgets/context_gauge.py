"""The context gauge: tokens used against the window; its tooltip and, on a click, a panel break it down."""

from __future__ import annotations

import html

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QKeyEvent, QMouseEvent, QPainter, QPainterPath, QPaintEvent
from PySide6.QtWidgets import QWidget

from domain.events import ContextStatus
from ui.backend import SessionMcpServer, UsageSummary
from ui.theme import Theme
from ui.widgets.context_panel import ContextPanel, percent_text


def compact_number(n: int) -> str:
    """12345 -> 12.3K, 1048576 -> 1.05M."""
    if n >= 1_000_000:
        return f"{n / 1_000_000:.2f}M".replace(".00M", "M")
    if n >= 10_000:
        return f"{n / 1000:.0f}K"
    if n >= 1000:
        return f"{n / 1000:.1f}K"
    return str(n)


def gauge_text(status: ContextStatus | None) -> str:
    """The label beside the bar."""
    if status is None:
        return "context —"
    if status.window is None:
        return f"{compact_number(status.used)} tokens"
    guess = "?" if status.window_is_guess else ""
    warned = "  ⚠" if status.warnings else ""
    return f"{compact_number(status.used)} / {compact_number(status.window)}{guess}  ({percent_text(status)}){warned}"


def gauge_tooltip(status: ContextStatus | None, usage: UsageSummary | None, compactions: int) -> str:
    """The breakdown: system, summary, messages, tool results, tool definitions; totals and cost."""
    lines = ["<b>Context sent with the next message</b>"]
    if status is not None:
        b = status.breakdown
        rows = [("System prompt", b.system), ("Summary", b.summary), ("Messages", b.messages),
                ("Attachments", b.attachments), ("Tool results", b.tool_results), ("Tool definitions", b.tools),
                ("Reasoning sent back", b.reasoning), ("Web search results", b.web_search)]
        lines += [f"{name}: {value:,}" for name, value in rows]
        window = f"{status.window:,}" if status.window else "unknown"
        lines.append(f"<b>Total: {status.used:,} of {window} tokens</b>")
        if status.window_is_guess:
            lines.append("<i>The window of this model is a guess — set it in Settings › Models.</i>")
        lines += [f"<b>⚠ {html.escape(warning)}</b>" for warning in status.warnings if not status.window_is_guess
                  or "guess" not in warning]
    lines.append(f"Compactions so far: {compactions}")
    if usage is not None:
        lines.append("<br><b>This conversation</b>")
        lines.append(f"Input: {usage.input_tokens:,} · output: {usage.output_tokens:,} · "
                     f"cache reads: {usage.cache_read_tokens:,}")
        lines.append(f"Cost: ${usage.cost_usd:.4f}" if usage.cost_usd is not None else "Cost: unknown for this model")
    lines.append("<i>Click the gauge for the threshold and warnings.</i>")
    return "<br>".join(lines)


class ContextGauge(QWidget):
    """A slim bar and a label; green, amber past 70%, red past the compaction threshold."""

    mcp_server_toggled = Signal(str, bool)  # from the panel: server name, on
    automatic_window_requested = Signal()  # from the panel
    settings_requested = Signal(str)  # from the panel: a Settings page to open

    def __init__(self, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._theme = theme
        self._status: ContextStatus | None = None
        self._usage: UsageSummary | None = None
        self._compactions = 0
        self._compacting = False
        self._servers: tuple[SessionMcpServer, ...] = ()
        self.panel: ContextPanel | None = None
        self.setMinimumWidth(112)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.setAccessibleName("Context gauge: press to show where the context goes")

    def set_theme(self, theme: Theme) -> None:
        """New colors."""
        self._theme = theme
        self.update()

    def show_state(self, status: ContextStatus | None, usage: UsageSummary | None, compactions: int,
               compacting: bool, servers: tuple[SessionMcpServer, ...] = ()) -> None:
        """Shows a new estimate (and the MCP servers the panel can turn off for this conversation)."""
        changed = (status, usage, compactions, servers) != (self._status, self._usage, self._compactions,
                                                             self._servers)
        self._status, self._compacting = status, compacting
        self._usage, self._compactions, self._servers = usage, compactions, servers
        self.setToolTip(gauge_tooltip(status, usage, compactions))
        if changed and self.panel is not None and self.panel.isVisible():
            self.panel.show_status(status, usage, compactions, servers)
        self.update()

    def open_panel(self) -> ContextPanel:
        """Opens the breakdown as a panel under the gauge (a click, Enter or Space)."""
        if self.panel is None:
            self.panel = ContextPanel(self)
            self.panel.mcp_server_toggled.connect(self.mcp_server_toggled)
            self.panel.automatic_window_requested.connect(self.automatic_window_requested)
            self.panel.settings_requested.connect(self.settings_requested)
        self.panel.show_status(self._status, self._usage, self._compactions, self._servers)
        self.panel.popup_under(self)
        return self.panel

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(event.position().toPoint()):
            self.open_panel()
            return
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space):
            self.open_panel()
            return
        super().keyPressEvent(event)

    def sizeHint(self) -> QSize:
        return QSize(170, 34)

    def ratio(self) -> float:
        """Used / window, 0 when unknown."""
        s = self._status
        return min(1.0, s.used / s.window) if s is not None and s.window else 0.0

    def paintEvent(self, event: QPaintEvent) -> None:
        t = self._theme
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        ratio = self.ratio()
        color = t.gauge_ok if ratio < 0.7 else t.gauge_warn if ratio < 0.85 else t.gauge_full
        track = QRectF(0, self.height() - 9, self.width() - 1, 6)
        path = QPainterPath()
        path.addRoundedRect(track, 3, 3)
        painter.fillPath(path, QColor(t.border))
        if ratio > 0:
            fill = QPainterPath()
            fill.addRoundedRect(QRectF(track.left(), track.top(), max(6.0, track.width() * ratio), 6), 3, 3)
            painter.fillPath(fill, QColor(color))
        painter.setPen(QColor(t.muted))
        label = "Compacting…" if self._compacting else gauge_text(self._status)
        if self.fontMetrics().horizontalAdvance(label) > self.width():  # narrow window: drop the percentage
            label = label.split("  (")[0]
        painter.drawText(QRectF(0, 0, self.width(), self.height() - 12),
                         int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), label)
        painter.end()
