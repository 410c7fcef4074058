"""Settings › Models and Compaction pages."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from domain.settings import DEADLINE_RANGE_S
from ui.viewmodels.settings import SettingsState, SettingsViewModel


class ModelsPage(QWidget):
    """A provider's models with their windows; refresh from the provider; set a window by hand."""

    def __init__(self, vm: SettingsViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._vm = vm
        self.provider = QComboBox(self)
        refresh = QPushButton("Refresh from provider", self)
        self.table = QTableWidget(0, 4, self)
        self.table.setHorizontalHeaderLabels(["Model", "Context window", "Max output", "Source"])
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().hide()
        self.table.setColumnWidth(0, 280)
        self.table.setColumnWidth(1, 150)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.window_box = QSpinBox(self)
        self.window_box.setRange(1024, 10_000_000)
        self.window_box.setSingleStep(1024)
        self.window_box.setGroupSeparatorShown(True)
        set_window = self.set_window = QPushButton("Set window", self)
        self.new_model = QLineEdit(self)
        self.new_model.setPlaceholderText("Add a model by id, e.g. llama3.1:8b")
        self.new_window = QSpinBox(self)
        self.new_window.setRange(1024, 10_000_000)
        self.new_window.setSingleStep(1024)
        self.new_window.setValue(8192)
        self.new_window.setGroupSeparatorShown(True)
        add_model = QPushButton("Add model", self)
        self.warning = QLabel(self)
        self.warning.setObjectName("Warning")
        self.warning.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(QLabel("Provider", self))
        top.addWidget(self.provider, 1)
        top.addWidget(refresh)
        edit = QHBoxLayout()
        edit.addWidget(QLabel("Context window of the selected model", self))
        edit.addWidget(self.window_box)
        edit.addWidget(set_window)
        edit.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.warning)
        layout.addLayout(edit)
        add_row = QHBoxLayout()
        add_row.addWidget(self.new_model, 1)
        add_row.addWidget(QLabel("window", self))
        add_row.addWidget(self.new_window)
        add_row.addWidget(add_model)
        layout.addLayout(add_row)
        self._state = SettingsState()
        self._chosen: tuple[object, ...] | None = ()
        self.provider.currentIndexChanged.connect(lambda _: self.show_state(self._state))
        refresh.clicked.connect(lambda: vm.refresh_models(str(self.provider.currentData())))
        set_window.clicked.connect(self._set_window)
        add_model.clicked.connect(lambda: vm.set_window(str(self.provider.currentData()), self.new_model.text().strip(),
                                                        self.new_window.value(), None))
        self.table.itemSelectionChanged.connect(self._selected)
        self._selected()

    def _models(self) -> list:
        pid = self.provider.currentData()
        return [m for m in self._state.models if m.provider_id == pid]

    def _selected(self) -> None:
        """The window box edits the selected model; with none selected it is empty and disabled."""
        rows = self.table.selectionModel().selectedRows()
        row = rows[0].row() if rows else -1
        models = self._models()
        chosen = models[row] if 0 <= row < len(models) else None
        for widget in (self.window_box, self.set_window):
            widget.setEnabled(chosen is not None)
            widget.setToolTip("" if chosen is not None else "Select a model in the table first")
        key = (chosen.provider_id, chosen.id, chosen.context_window_size) if chosen is not None else None
        if key == self._chosen:  # the same model still selected: keep what the user is typing
            return
        self._chosen = key
        if chosen is not None and chosen.context_window_size:
            self.window_box.setValue(chosen.context_window_size)
        else:
            self.window_box.clear()  # nothing selected, or an unknown window: no made-up number

    def _set_window(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        row = rows[0].row() if rows else -1
        models = self._models()
        if 0 <= row < len(models) and self.window_box.text():
            m = models[row]
            self._vm.set_window(m.provider_id, m.id, self.window_box.value(), m.max_output_tokens)

    def show_state(self, state: SettingsState) -> None:
        """Fills the provider list and the table."""
        self._state = state
        ids = [p.provider.id for p in state.providers]
        if ids != [self.provider.itemData(i) for i in range(self.provider.count())]:
            self.provider.blockSignals(True)
            self.provider.clear()
            for p in state.providers:
                self.provider.addItem(p.provider.name, p.provider.id)
            self.provider.blockSignals(False)
        models = self._models()
        self.table.setRowCount(len(models))
        guesses = []
        for i, m in enumerate(models):
            window = f"{m.context_window_size:,}" if m.context_window_size else "unknown"
            if m.window_is_guess:
                window += "  (guess)"
                guesses.append(m.id)
            source = "set by you" if m.user_window else m.source.value
            cells = [m.display_name or m.id, window, f"{m.max_output_tokens:,}" if m.max_output_tokens else "—",
                     source]
            for j, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if j == 1 and m.window_is_guess:
                    item.setForeground(Qt.GlobalColor.darkYellow)
                self.table.setItem(i, j, item)
        self.warning.setText(
            "Guessed windows: " + ", ".join(guesses) + ". Palimpsest compacts against the window; set the real "
            "one so it neither overflows nor summarizes too early." if guesses else "")
        self._selected()


def _seconds_box(parent: QWidget) -> QDoubleSpinBox:
    box = QDoubleSpinBox(parent)
    box.setRange(*DEADLINE_RANGE_S)
    box.setDecimals(1)
    box.setSuffix(" s")
    return box


class CompactionPage(QWidget):
    """Threshold, protected window, compaction model, pruning, memory flush, and how long to wait on a provider."""

    def __init__(self, vm: SettingsViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._vm = vm
        self.threshold = QDoubleSpinBox(self)
        self.threshold.setRange(30, 98)
        self.threshold.setSuffix(" % of the window")
        self.threshold.setDecimals(0)
        self.protected = QDoubleSpinBox(self)
        self.protected.setRange(5, 60)
        self.protected.setSuffix(" % of the window")
        self.protected.setDecimals(0)
        self.model = QLineEdit(self)
        self.model.setPlaceholderText("Automatic: a cheaper sibling (Haiku, mini, Flash), else the chat model")
        self.model.setMinimumWidth(460)
        self.summary_tokens = QSpinBox(self)
        self.summary_tokens.setRange(256, 16_384)
        self.pruning = QCheckBox("Trim old tool results before each request (never your or the model's text)", self)
        self.flush = QCheckBox("Let the agent save durable facts to long-term memory before summarizing", self)
        self.headers_timeout = _seconds_box(self)
        self.idle_timeout = _seconds_box(self)
        self.idle_timeout.setToolTip("Keep-alive pings do not count. Models that think silently may need minutes.")
        self.round_timeout = _seconds_box(self)
        save = QPushButton("Save", self)
        form = QFormLayout(self)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        form.addRow("Compact when context passes", self.threshold)
        form.addRow("Keep recent messages verbatim", self.protected)
        form.addRow("Compaction model", self.model)
        form.addRow("Summary length (tokens)", self.summary_tokens)
        form.addRow("", self.pruning)
        form.addRow("", self.flush)
        form.addRow("Wait for the provider to answer", self.headers_timeout)
        form.addRow("Give up after a silence of", self.idle_timeout)
        form.addRow("Give up on a reply after", self.round_timeout)
        form.addRow("", save)
        save.clicked.connect(self._save)
        self._state = SettingsState()

    def show_state(self, state: SettingsState) -> None:
        """Shows the stored settings (only when they change, so typing is not overwritten)."""
        if state.context is None or state.context == self._state.context:
            self._state = state
            return
        self._state = state
        c = state.context
        self.threshold.setValue(c.compact_threshold_ratio * 100)
        self.protected.setValue(c.protected_window_ratio * 100)
        self.model.setText(c.compaction_model_id or "")
        self.summary_tokens.setValue(c.summary_max_tokens)
        self.pruning.setChecked(c.pruning_enabled)
        self.flush.setChecked(c.memory_flush_enabled)
        self.headers_timeout.setValue(c.headers_timeout_s)
        self.idle_timeout.setValue(c.idle_timeout_s)
        self.round_timeout.setValue(c.round_timeout_s)

    def _save(self) -> None:
        if self._state.context is None:
            return
        self._vm.save_context_settings(replace(
            self._state.context,
            compact_threshold_ratio=round(self.threshold.value() / 100, 4),
            protected_window_ratio=round(self.protected.value() / 100, 4),
            compaction_model_id=self.model.text().strip() or None,
            summary_max_tokens=self.summary_tokens.value(),
            pruning_enabled=self.pruning.isChecked(),
            memory_flush_enabled=self.flush.isChecked(),
            headers_timeout_s=self.headers_timeout.value(),
            idle_timeout_s=self.idle_timeout.value(),
            round_timeout_s=self.round_timeout.value(),
        ))
