"""`/server:prompt` in the composer: typing `/` offers the MCP servers' prompts, then each prompt's arguments and
the values the server completes; Enter on a whole command fills the composer with the prompt's messages."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtGui import QKeyEvent, QTextCursor
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QPlainTextEdit, QWidget

from ui.mcp_backend import McpListing, ServerPrompt
from ui.slash_command import SlashPart, SlashQuery, slash_command, slash_query
from ui.viewmodels.chat_mcp import McpController

INSERT_ROLE = Qt.ItemDataRole.UserRole
MAX_ROWS = 8


@dataclass(frozen=True)
class Offer:
    """One line of the popup: what it shows and what choosing it puts in place of the word typed."""

    label: str
    detail: str
    insert: str


class SlashCompleter(QObject):
    """Watches the composer's box; its popup (`popup`) floats above the box and never takes the focus."""

    def __init__(self, edit: QPlainTextEdit, mcp: McpController, window: QWidget) -> None:
        super().__init__(window)
        self._edit, self._mcp, self._window = edit, mcp, window
        self.popup = QListWidget(window)
        self.popup.setObjectName("SlashPopup")
        self.popup.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.popup.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.popup.itemClicked.connect(self._choose)
        self.popup.hide()
        self._slashing = False  # the text is a slash command: the prompts were asked for once for it
        self._values: dict[tuple[str, str, str, str], list[str]] = {}  # the server's completions by request
        self._query: SlashQuery | None = None
        edit.textChanged.connect(self.update)
        edit.cursorPositionChanged.connect(self.update)
        edit.installEventFilter(self)
        mcp.prompts_ready.connect(lambda _listing: self.update())
        mcp.completions_ready.connect(self._completed)

    def offers(self) -> list[Offer]:
        """What the popup offers for the word under the cursor (empty: it is hidden)."""
        query, listing = self._query, self._mcp.prompts
        if query is None or listing is None:
            return []
        if query.part is SlashPart.PROMPT:
            typed = query.prefix.lower()
            return [Offer(p.command, _describe(p), f"{p.command} ") for p in listing.prompts
                    if p.command.lower().startswith(typed) or (typed and typed in p.command.lower())]
        prompt = _find(listing, query.command)
        if prompt is None:
            return []
        if query.part is SlashPart.NAME:
            return [Offer(f"{a.name}=", ("required · " if a.required else "") + a.description, f"{a.name}=")
                    for a in prompt.prompt.arguments if a.name not in query.given and a.name.startswith(query.prefix)]
        if all(a.name != query.argument for a in prompt.prompt.arguments):
            return []
        key = (prompt.server, prompt.prompt.name, query.argument, query.prefix)
        if key not in self._values:
            self._values[key] = []
            self._mcp.complete(prompt.server, prompt.prompt.name, query.argument, query.prefix, query.given)
        return [Offer(v, "", f"{v} ") for v in self._values[key]]

    def update(self) -> None:
        """Follows the text and the cursor: asks for the prompts when a slash command starts, shows the offers."""
        cursor = self._edit.textCursor()
        self._query = slash_query(self._edit.toPlainText(), cursor.position()) if not cursor.hasSelection() else None
        if self._query is None:
            self._slashing = False
            self.popup.hide()
            return
        if not self._slashing:
            self._slashing = True
            self._values.clear()
            self._mcp.load_prompts()
        self._show(self.offers())

    def choose_current(self) -> bool:
        """Puts the selected offer in place of the word typed (False when the popup offers nothing)."""
        item = self.popup.currentItem()
        if not self.popup.isVisible() or item is None:
            return False
        self._choose(item)
        return True

    def fill(self) -> bool:
        """A whole `/server:prompt name=value ...` of a listed prompt: has its server fill it in (False otherwise)."""
        command = slash_command(self._edit.toPlainText())
        listing = self._mcp.prompts
        if command is None or listing is None or _find(listing, f"{command[0]}:{command[1]}") is None:
            return False
        self.popup.hide()
        self._mcp.fill_prompt(*command)
        return True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._edit and event.type() == QEvent.Type.FocusOut:
            self.popup.hide()  # the next key typed in the box shows it again
        if watched is not self._edit or not isinstance(event, QKeyEvent):
            return super().eventFilter(watched, event)
        key = event.key()
        if event.type() == QEvent.Type.ShortcutOverride and key == Qt.Key.Key_Escape and self.popup.isVisible():
            event.accept()  # Esc closes the popup, not the window's Esc (stop the reply)
            return True
        if event.type() != QEvent.Type.KeyPress:
            return super().eventFilter(watched, event)
        if self.popup.isVisible() and key in (Qt.Key.Key_Up, Qt.Key.Key_Down):
            row = self.popup.currentRow() + (1 if key == Qt.Key.Key_Down else -1)
            self.popup.setCurrentRow(max(0, min(self.popup.count() - 1, row)))
            return True
        if key == Qt.Key.Key_Escape and self.popup.isVisible():
            self.popup.hide()
            return True
        if key == Qt.Key.Key_Tab and self.choose_current():
            return True
        shift = event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        enter = key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not shift
        query = self._query
        if enter and query is not None:
            between = query.part is SlashPart.NAME and not query.prefix  # after a space: the command is whole
            if (between and self.fill()) or self.choose_current() or self.fill():
                return True
        return super().eventFilter(watched, event)

    def _choose(self, item: QListWidgetItem) -> None:
        query = self._query
        if query is None:
            return
        insert = str(item.data(INSERT_ROLE))
        cursor = self._edit.textCursor()
        end = cursor.position()
        cursor.setPosition(query.start)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        cursor.insertText(insert)
        self._edit.setTextCursor(cursor)
        self._edit.setFocus()
        listing = self._mcp.prompts
        chosen = _find(listing, insert.strip()) if listing is not None and query.part is SlashPart.PROMPT else None
        if chosen is not None and not chosen.prompt.arguments:
            self.fill()  # nothing to ask: its messages come at once

    def _completed(self, key: tuple[str, str, str, str], values: list[str]) -> None:
        self._values[key] = values
        self.update()

    def _show(self, offers: list[Offer]) -> None:
        if not offers:
            self.popup.hide()
            return
        current = self.popup.currentItem().text() if self.popup.currentItem() is not None else None
        self.popup.clear()
        for offer in offers:
            item = QListWidgetItem(f"{offer.label}    {offer.detail}".rstrip())
            item.setData(INSERT_ROLE, offer.insert)
            item.setToolTip(offer.detail)
            self.popup.addItem(item)
        rows = [i for i in range(self.popup.count()) if self.popup.item(i).text() == current]
        self.popup.setCurrentRow(rows[0] if rows else 0)
        height = self.popup.sizeHintForRow(0) * min(MAX_ROWS, len(offers)) + 2 * self.popup.frameWidth() + 4
        width = min(self._edit.width(), 640)
        top_left = self._edit.mapTo(self._window, QPoint(0, 0))
        self.popup.setGeometry(top_left.x(), top_left.y() - height - 4, width, height)
        self.popup.show()
        self.popup.raise_()


def _find(listing: McpListing, command: str) -> ServerPrompt | None:
    return next((p for p in listing.prompts if p.command == command), None)


def _describe(prompt: ServerPrompt) -> str:
    arguments = " ".join(a.name + ("*" if a.required else "") for a in prompt.prompt.arguments)
    description = " ".join(prompt.prompt.description.split())
    return " · ".join(part for part in (arguments, description) if part)
