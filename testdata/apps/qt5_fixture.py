#!/usr/bin/python3
"""uiscope Qt 5 test fixture: a small, deterministic window with predictable accessible names.

Run with Debian's /usr/bin/python3 (needs python3-pyqt5). Prints nothing to stdout.
Qt joins the AT-SPI bus only when accessibility is on at start-up: run it with
QT_QPA_PLATFORM=xcb QT_ACCESSIBILITY=1 QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1, on a desktop whose
root window carries the AT_SPI_BUS property.

Widgets (accessible name -> Qt role name):
  "Name"            text (QLineEdit, empty)
  "Password"        password text (QLineEdit, EchoMode Password, text "hunter2-qt-secret")
  "Remember me"     check box
  "Red"             combo box (Red, Green, Blue; Red current). accessibleName is "Color", but
                    Qt on Linux names a non-editable combo box after its current text.
  "Submit"          push button: sets the status label to "Submitted: <Name text>"
  "Ready"           label (the status label)
  "Disabled action" push button, disabled

Options:
  --title T         window title (default "uiscope Qt5 fixture")
  --form            add controls for value reads, after "Disabled action": "Name" holds
                    "Ada Lovelace", "Green" is the combo box's current item, and
                      "Count"   spin button (QSpinBox 0..100, value 5)
                      "Volume"  slider (QSlider 0..100, value 30)
                      "Notes"   text (QPlainTextEdit, "12*7\n= 84\n": Qt answers a GetText
                                whose end is past the character count with "")
  --x X --y Y       window position (default 60, 60)
  --rows N          add item views of N rows: a table "Rows" (QTableWidget, columns "Row" and
                    "Value", cells "Row i" and "Value i") and a list "Items" (QListWidget,
                    items "Item i"), i from 1; the window grows to show several rows of each
"""
import argparse
import signal
import sys

from PyQt5.QtCore import Qt
from PyQt5.QtWidgets import (QApplication, QCheckBox, QComboBox, QLabel, QLineEdit,
                             QListWidget, QMainWindow, QPlainTextEdit, QPushButton, QSlider,
                             QSpinBox, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

SECRET = "hunter2-qt-secret"


def build(args):
    # A QMainWindow is exposed as a "frame" (a bare top-level QWidget would be a "filler").
    win = QMainWindow()
    win.setWindowTitle(args.title)
    central = QWidget()
    win.setCentralWidget(central)
    layout = QVBoxLayout(central)

    entry = QLineEdit()
    entry.setAccessibleName("Name")
    entry.setPlaceholderText("Your name")
    layout.addWidget(entry)

    password = QLineEdit(SECRET)
    password.setEchoMode(QLineEdit.Password)
    password.setAccessibleName("Password")
    layout.addWidget(password)

    layout.addWidget(QCheckBox("Remember me"))

    combo = QComboBox()
    combo.setAccessibleName("Color")
    combo.addItems(["Red", "Green", "Blue"])
    layout.addWidget(combo)

    status = QLabel("Ready")
    submit = QPushButton("Submit")
    submit.clicked.connect(lambda: status.setText("Submitted: " + entry.text()))
    layout.addWidget(submit)
    layout.addWidget(status)

    disabled = QPushButton("Disabled action")
    disabled.setEnabled(False)
    layout.addWidget(disabled)

    if args.form:
        entry.setText("Ada Lovelace")
        combo.setCurrentIndex(1)
        spin = QSpinBox()
        spin.setRange(0, 100)
        spin.setValue(5)
        spin.setAccessibleName("Count")
        layout.addWidget(spin)
        slider = QSlider(Qt.Horizontal)
        slider.setRange(0, 100)
        slider.setValue(30)
        slider.setAccessibleName("Volume")
        layout.addWidget(slider)
        notes = QPlainTextEdit("12*7\n= 84\n")
        notes.setAccessibleName("Notes")
        layout.addWidget(notes)

    height = 520 if args.form else 320
    if args.rows:
        table = QTableWidget(args.rows, 2)
        table.setAccessibleName("Rows")
        table.setHorizontalHeaderLabels(["Row", "Value"])
        for i in range(args.rows):
            table.setItem(i, 0, QTableWidgetItem("Row %d" % (i + 1)))
            table.setItem(i, 1, QTableWidgetItem("Value %d" % (i + 1)))
        table.setMinimumHeight(180)
        layout.addWidget(table)
        items = QListWidget()
        items.setAccessibleName("Items")
        items.addItems(["Item %d" % (i + 1) for i in range(args.rows)])
        items.setMinimumHeight(120)
        layout.addWidget(items)
        height += 360
    else:
        layout.addStretch(1)

    win.resize(500, height)
    win.move(args.x, args.y)
    win.show()
    return win


def main():
    p = argparse.ArgumentParser(description="uiscope Qt 5 fixture")
    p.add_argument("--title", default="uiscope Qt5 fixture")
    p.add_argument("--form", action="store_true")
    p.add_argument("--x", type=int, default=60)
    p.add_argument("--y", type=int, default=60)
    p.add_argument("--rows", type=int, default=0)
    args = p.parse_args()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    app = QApplication([sys.argv[0]])  # keep our options away from Qt's own parser
    app.setApplicationName("qt5_fixture.py")
    win = build(args)  # noqa: F841 (keep a reference)
    sys.exit(app.exec_())


if __name__ == "__main__":
    main()
