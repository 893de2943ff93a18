#!/usr/bin/python3
"""uiscope Qt 5 table fixture: a QTableWidget "Items" of N rows and 3 columns.

Run with Debian's /usr/bin/python3 (needs python3-pyqt5), with QT_QPA_PLATFORM=xcb
QT_ACCESSIBILITY=1 QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 as for qt5_fixture.py. Prints nothing.

Cells: column headers "Name", "Qty", "Note"; row R holds "item R", "R*7" and "note R",
except row 5's note, which is "long " followed by 300 "x" (a text longer than a cell's
value cap). Only the first rows fit in the window.

Options:
  --rows N     rows (default 3000)
  --title T    window title (default "uiscope Qt5 table")
"""
import argparse
import signal
import sys

from PyQt5.QtWidgets import QApplication, QTableWidget, QTableWidgetItem


def main():
    p = argparse.ArgumentParser(description="uiscope Qt 5 table fixture")
    p.add_argument("--rows", type=int, default=3000)
    p.add_argument("--title", default="uiscope Qt5 table")
    args = p.parse_args()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    app = QApplication([sys.argv[0]])  # keep our options away from Qt's own parser
    app.setApplicationName("qt5_table.py")
    table = QTableWidget(args.rows, 3)
    table.setWindowTitle(args.title)
    table.setAccessibleName("Items")
    table.setHorizontalHeaderLabels(["Name", "Qty", "Note"])
    for r in range(args.rows):
        note = "long " + "x" * 300 if r == 5 else "note %d" % r
        for c, text in enumerate(["item %d" % r, str(r * 7), note]):
            table.setItem(r, c, QTableWidgetItem(text))
    table.resize(500, 400)
    table.move(60, 60)
    table.show()
    sys.exit(app.exec_())


if __name__ == "__main__":
    main()
