#!/usr/bin/python3
"""uiscope Tk test fixture: Tk has no AT-SPI support, so this app never joins the
accessibility bus. It is the not-accessible test case (X11 window, screenshots, pointer input).

Run with Debian's /usr/bin/python3 (needs python3-tk). Prints nothing to stdout.
Window: a label "Hello from Tk" and a button "Press" that changes the label to "Pressed 1",
"Pressed 2", ...

Options:
  --title T     window title (default "uiscope Tk fixture")
  --x X --y Y   window position (default 80, 80)
  --title-follows  the window title follows the label ("Pressed 1", ...), so that a press
                can be read back through X (Tk has no accessibility tree to read it from);
                the key "p" in the window presses the button too
  --buttons N   N more buttons "Extra 1" ... "Extra N" (each an X window of its own), in a grid
"""
import argparse
import signal
import tkinter as tk


def main():
    p = argparse.ArgumentParser(description="uiscope Tk fixture")
    p.add_argument("--title", default="uiscope Tk fixture")
    p.add_argument("--x", type=int, default=80)
    p.add_argument("--y", type=int, default=80)
    p.add_argument("--title-follows", action="store_true")
    p.add_argument("--buttons", type=int, default=0)
    args = p.parse_args()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)

    root = tk.Tk(className="uiscope-tk-fixture")
    root.title(args.title)
    root.geometry("320x160+%d+%d" % (args.x, args.y))
    label = tk.Label(root, text="Hello from Tk")
    label.pack(padx=10, pady=10)
    count = [0]

    def press():
        count[0] += 1
        label.configure(text="Pressed %d" % count[0])
        if args.title_follows:
            root.title("Pressed %d" % count[0])

    tk.Button(root, text="Press", command=press).pack(padx=10, pady=10)
    if args.title_follows:
        root.bind("<Key-p>", lambda _e: press())
    if args.buttons:
        root.geometry("640x480+%d+%d" % (args.x, args.y))
        grid = tk.Frame(root)
        grid.pack()
        for i in range(args.buttons):
            tk.Button(grid, text="Extra %d" % (i + 1)).grid(row=i // 10, column=i % 10)
    root.mainloop()


if __name__ == "__main__":
    main()
