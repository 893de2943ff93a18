#!/usr/bin/python3
"""uiscope Qt 5 dialogs fixture: actions that open modal dialogs, and a field that submits.

Run with Debian's /usr/bin/python3 (needs python3-pyqt5), with QT_QPA_PLATFORM=xcb
QT_ACCESSIBILITY=1 QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 as for qt5_fixture.py. Prints nothing
to stdout.

Qt answers an AT-SPI DoAction on a menu item only once the slot it triggers has returned, so a
slot that runs QDialog.exec() holds the reply until the dialog closes (KWrite's Save As...).

Widgets (accessible name -> Qt role name):
  "File"             menu item of the menu bar; its menu holds
    "Save As..."     menu item: opens the modal QFileDialog "Save File" (Qt's own, not
                     the desktop's) through exec()
    "Settings..."    menu item: opens the modal QDialog "Settings" through exec()
  "Open Settings"    push button: opens the same "Settings" dialog through exec()
  "Expression"       text (a QPlainTextEdit, as SpeedCrunch's expression editor is): Enter
                     evaluates it (digits and + - * /), appends "EXPR = RESULT" to "History"
                     and clears the field, as SpeedCrunch does
  "History"          text (QPlainTextEdit, read-only)
The "Settings" dialog has a push button "Close" (accept) and a text "Option".

Options:
  --log FILE         append a line per event: "exec Settings", "exec Save File" when a
                     dialog's exec() starts, "done NAME" when it returns, "eval EXPR = RESULT"
                     when an expression is evaluated
  --title T          window title (default "uiscope Qt5 dialogs")
  --effects          add, after "History", what an action's effects are checked on: "Effects
                     entry" (text, QLineEdit), "Effects next" (push button, the next in the
                     focus chain) and "Remove me" (push button that deletes itself when clicked,
                     logging "removed Remove me"); the log then also says "focus NAME" when a
                     widget takes the focus (NAME its accessible name, else its text)
"""
import argparse
import re
import signal
import sys

from PyQt5.QtCore import Qt
from PyQt5.QtWidgets import (QAction, QApplication, QDialog, QFileDialog, QLineEdit,
                             QMainWindow, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget)

LOG = None


def log(line):
    if LOG:
        with open(LOG, "a") as f:
            f.write(line + "\n")


def settings(parent):
    dlg = QDialog(parent)
    dlg.setWindowTitle("Settings")
    layout = QVBoxLayout(dlg)
    option = QLineEdit()
    option.setAccessibleName("Option")
    layout.addWidget(option)
    close = QPushButton("Close")
    close.clicked.connect(dlg.accept)
    layout.addWidget(close)
    dlg.resize(300, 120)
    log("exec Settings")
    dlg.exec_()
    log("done Settings")
    dlg.deleteLater()


def save_as(parent):
    dlg = QFileDialog(parent, "Save File")
    dlg.setOption(QFileDialog.DontUseNativeDialog, True)
    dlg.setAcceptMode(QFileDialog.AcceptSave)
    log("exec Save File")
    dlg.exec_()
    log("done Save File")
    dlg.deleteLater()


class Editor(QPlainTextEdit):
    """A one-line expression editor that evaluates on Enter, like SpeedCrunch's."""

    def __init__(self, history):
        super().__init__()
        self.history = history
        self.setAccessibleName("Expression")
        self.setFixedHeight(32)

    def keyPressEvent(self, event):
        if event.key() not in (Qt.Key_Return, Qt.Key_Enter):
            super().keyPressEvent(event)
            return
        text = self.toPlainText().strip()
        if not re.fullmatch(r"[0-9+\-*/ ().]+", text):
            return
        line = "%s = %s" % (text, eval(text))  # digits and operators only
        self.history.appendPlainText(line)
        log("eval " + line)
        self.clear()


def add_effects(layout):
    entry = QLineEdit()
    entry.setAccessibleName("Effects entry")
    layout.addWidget(entry)
    layout.addWidget(QPushButton("Effects next"))
    remover = QPushButton("Remove me")

    def remove():
        remover.deleteLater()
        log("removed Remove me")

    remover.clicked.connect(remove)
    layout.addWidget(remover)


def widget_name(w):
    if w is None:
        return ""
    if w.accessibleName():
        return w.accessibleName()
    return w.text() if hasattr(w, "text") else ""


def build(args):
    win = QMainWindow()
    win.setWindowTitle(args.title)
    menu = win.menuBar().addMenu("File")
    act = QAction("Save As...", win)
    act.triggered.connect(lambda: save_as(win))
    menu.addAction(act)
    act = QAction("Settings...", win)
    act.triggered.connect(lambda: settings(win))
    menu.addAction(act)

    central = QWidget()
    win.setCentralWidget(central)
    layout = QVBoxLayout(central)
    button = QPushButton("Open Settings")
    button.clicked.connect(lambda: settings(win))
    layout.addWidget(button)

    history = QPlainTextEdit()
    history.setReadOnly(True)
    history.setAccessibleName("History")
    layout.addWidget(Editor(history))
    layout.addWidget(history)
    if args.effects:
        add_effects(layout)
    win.resize(460, 320)
    win.move(60, 60)
    win.show()
    return win


def main():
    global LOG
    p = argparse.ArgumentParser(description="uiscope Qt 5 dialogs fixture")
    p.add_argument("--log")
    p.add_argument("--title", default="uiscope Qt5 dialogs")
    p.add_argument("--effects", action="store_true")
    args = p.parse_args()
    LOG = args.log
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    app = QApplication([sys.argv[0]])  # keep our options away from Qt's own parser
    app.setApplicationName("qt5_dialogs.py")
    win = build(args)  # noqa: F841 (keep a reference)
    if args.effects:
        app.focusChanged.connect(lambda _old, new: new is not None and log("focus " + widget_name(new)))
    sys.exit(app.exec_())


if __name__ == "__main__":
    main()
