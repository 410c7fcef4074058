"""Light and dark themes that follow the system's color scheme: palette, chat colors and a small stylesheet."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette


@dataclass(frozen=True)
class Theme:
    """Colors the custom-painted chat uses; widgets otherwise follow the QPalette built from it."""

    dark: bool
    window: str
    surface: str
    text: str
    muted: str
    accent: str
    accent_text: str
    user_bubble: str
    assistant_bubble: str
    code_bg: str
    border: str
    error_bg: str
    error_text: str
    warning: str
    divider: str
    gauge_ok: str
    gauge_warn: str
    gauge_full: str
    pygments_style: str
    snackbar_bg: str
    snackbar_text: str
    snackbar_action: str
    selection: str


LIGHT = Theme(
    dark=False, window="#f6f7f9", surface="#ffffff", text="#1d2330", muted="#6b7385", accent="#5b57d6",
    accent_text="#ffffff", user_bubble="#e9e8fc", assistant_bubble="#ffffff", code_bg="#f3f4f7", border="#dfe2e8",
    error_bg="#fdecec", error_text="#a4262c", warning="#b26a00", divider="#8a7fd8", gauge_ok="#3aa675",
    gauge_warn="#d99a1e", gauge_full="#d64545", pygments_style="friendly",
    snackbar_bg="#1d2330", snackbar_text="#ffffff", snackbar_action="#a9a6ff",
    selection="#c8c6f5",
)
DARK = Theme(
    dark=True, window="#17191e", surface="#1f2228", text="#e4e6eb", muted="#969cab", accent="#8b87ff",
    accent_text="#0f1014", user_bubble="#2e2c52", assistant_bubble="#23262d", code_bg="#15171b", border="#33373f",
    error_bg="#3a1d20", error_text="#ff9b9b", warning="#f0b94a", divider="#a39dff", gauge_ok="#4cc38a",
    gauge_warn="#f0b94a", gauge_full="#ff6b6b", pygments_style="monokai",
    snackbar_bg="#e4e6eb", snackbar_text="#1f2228", snackbar_action="#4a45c4",
    selection="#45427a",
)


def system_prefers_dark() -> bool:
    """The system's color scheme (falls back to the palette's lightness when the platform does not say)."""
    app = QGuiApplication.instance()
    if not isinstance(app, QGuiApplication):
        return False
    scheme = app.styleHints().colorScheme()
    if scheme == Qt.ColorScheme.Dark:
        return True
    if scheme == Qt.ColorScheme.Light:
        return False
    return app.palette().color(QPalette.ColorRole.Window).lightness() < 128


def current_theme(dark: bool | None = None) -> Theme:
    """The theme for the given (or the system's) scheme."""
    return DARK if (system_prefers_dark() if dark is None else dark) else LIGHT


def palette_for(theme: Theme) -> QPalette:
    """A QPalette matching the theme, for Fusion-styled widgets."""
    p = QPalette()
    role = QPalette.ColorRole
    p.setColor(role.Window, QColor(theme.window))
    p.setColor(role.WindowText, QColor(theme.text))
    p.setColor(role.Base, QColor(theme.surface))
    p.setColor(role.AlternateBase, QColor(theme.window))
    p.setColor(role.Text, QColor(theme.text))
    p.setColor(role.Button, QColor(theme.surface))
    p.setColor(role.ButtonText, QColor(theme.text))
    p.setColor(role.Highlight, QColor(theme.accent))
    p.setColor(role.HighlightedText, QColor(theme.accent_text))
    p.setColor(role.ToolTipBase, QColor(theme.surface))
    p.setColor(role.ToolTipText, QColor(theme.text))
    p.setColor(role.PlaceholderText, QColor(theme.muted))
    p.setColor(role.Link, QColor(theme.accent))
    p.setColor(role.Mid, QColor(theme.border))
    for group in (QPalette.ColorGroup.Disabled,):
        p.setColor(group, role.Text, QColor(theme.muted))
        p.setColor(group, role.ButtonText, QColor(theme.muted))
        p.setColor(group, role.WindowText, QColor(theme.muted))
    return p


def stylesheet_for(t: Theme) -> str:
    """A small stylesheet for the app's named widgets (the chat itself is painted by its delegate)."""
    return f"""
    #Sidebar {{ background: {t.surface}; border-right: 1px solid {t.border}; }}
    #Header {{ background: {t.surface}; border-bottom: 1px solid {t.border}; }}
    #SessionTitle {{ font-size: 15px; font-weight: 600; }}
    #ChatList {{ background: {t.window}; border: none; }}
    #SessionList {{ background: {t.surface}; border: none; }}
    #SessionList::item {{ padding: 7px 8px; border-radius: 6px; }}
    #SessionList::item:selected {{ background: {t.user_bubble}; color: {t.text}; }}
    #Composer {{ background: {t.surface}; border: 1px solid {t.border}; border-radius: 10px; padding: 6px; }}
    #ComposerBar {{ background: {t.window}; }}
    #AttachmentChip {{ background: {t.surface}; border: 1px solid {t.border}; border-radius: 8px; }}
    #AttachmentThumb {{ background: {t.code_bg}; border-radius: 6px; color: {t.muted}; font-weight: 700; }}
    #ChipRemove {{ border: none; padding: 0 4px; background: transparent; color: {t.muted}; font-size: 14px; }}
    #ChipRemove:hover {{ color: {t.error_text}; }}
    #Paperclip {{ padding: 6px 8px; font-size: 15px; }}
    #EditBar {{ background: {t.user_bubble}; border-left: 3px solid {t.accent}; border-radius: 6px; }}
    #EditBarText {{ color: {t.text}; background: transparent; font-weight: 600; }}
    #EditBarClose {{ border: none; background: transparent; color: {t.muted}; font-size: 16px; padding: 0 6px; }}
    #EditBarClose:hover {{ color: {t.error_text}; }}
    #PrimaryButton {{ background: {t.accent}; color: {t.accent_text}; border: none; border-radius: 8px;
                     padding: 7px 16px; font-weight: 600; }}
    #PrimaryButton:disabled {{ background: {t.border}; color: {t.muted}; }}
    #StopButton {{ background: {t.error_text}; color: {t.surface}; border: none; border-radius: 8px;
                  padding: 7px 16px; font-weight: 600; }}
    #Snackbar {{ background: {t.snackbar_bg}; border-radius: 8px; }}
    #SnackbarText {{ color: {t.snackbar_text}; background: transparent; }}
    #SnackbarAction {{ color: {t.snackbar_action}; background: transparent; border: none; font-weight: 700; }}
    #SnackbarAction:hover {{ text-decoration: underline; }}
    #CompactingBar {{ background: {t.user_bubble}; color: {t.text}; padding: 4px 10px; }}
    #FirstRun {{ background: {t.window}; }}
    #Card {{ background: {t.surface}; border: 1px solid {t.border}; border-radius: 12px; }}
    #CardTitle {{ font-size: 14px; font-weight: 600; }}
    #Muted {{ color: {t.muted}; }}
    #Warning {{ color: {t.warning}; }}
    #ErrorText {{ color: {t.error_text}; }}
    #Hero {{ font-size: 22px; font-weight: 700; }}
    QLineEdit, QPlainTextEdit, QComboBox {{
        border: 1px solid {t.border}; border-radius: 6px; padding: 4px 6px; background: {t.surface}; }}
    QComboBox QAbstractItemView {{ background: {t.surface}; color: {t.text}; selection-background-color: {t.accent};
                                   selection-color: {t.accent_text}; border: 1px solid {t.border}; }}
    #Picker {{ padding: 4px 8px; }}
    #PickerPopup {{ background: {t.surface}; border: 1px solid {t.border}; border-radius: 8px; }}
    #PickerList {{ background: transparent; border: none; }}
    #PickerList QScrollBar:vertical {{ background: transparent; width: 8px; margin: 0; }}
    #PickerList QScrollBar::handle:vertical {{ background: {t.border}; border-radius: 4px; min-height: 28px; }}
    #PickerList QScrollBar::handle:vertical:hover {{ background: {t.muted}; }}
    #PickerList QScrollBar::add-line:vertical, #PickerList QScrollBar::sub-line:vertical {{ height: 0; }}
    #PickerList QScrollBar::add-page:vertical, #PickerList QScrollBar::sub-page:vertical {{ background: none; }}
    #SidebarToggle {{ padding: 4px 9px; font-size: 15px; }}
    #SlashPopup {{ background: {t.surface}; border: 1px solid {t.border}; border-radius: 8px; padding: 4px; }}
    #SlashPopup::item {{ padding: 5px 8px; border-radius: 6px; color: {t.text}; }}
    #SlashPopup::item:selected {{ background: {t.user_bubble}; color: {t.text}; }}
    QToolButton {{ border: 1px solid {t.border}; border-radius: 6px; padding: 5px 10px; background: {t.surface}; }}
    QToolButton::menu-indicator {{ image: none; width: 0px; }}
    #WebSearchToggle {{ padding: 4px 6px; }}
    #WebSearchToggle:checked {{ background: {t.selection}; border-color: {t.accent}; }}
    QPushButton {{ border: 1px solid {t.border}; border-radius: 6px; padding: 5px 12px; background: {t.surface}; }}
    QPushButton:hover {{ border-color: {t.accent}; }}
    QToolTip {{ background: {t.surface}; color: {t.text}; border: 1px solid {t.border}; padding: 6px; }}
    """
