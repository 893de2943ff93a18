// Command uiscope lets AI agents (over MCP) and people (over this CLI) read
// and, when allowed, operate running desktop GUI applications.
//
// Each subcommand lives in its own file and registers itself in init; this
// file only dispatches. Output goes through the cli struct so tests can
// capture it, and nothing but the MCP stream ever goes to stdout in mcp mode.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// cli carries the streams a command writes to.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, c *cli, args []string) error
}

var commands = map[string]command{}

func register(cmd command) { commands[cmd.name] = cmd }

// exitError carries a specific exit status; its message has been printed.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func main() {
	if code, ok := hiddenMode(os.Args[1:]); ok {
		os.Exit(code)
	}
	ctx, stop := signal.NotifyContext(context.Background(), stopSignals()...)
	code := run(ctx, &cli{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}, os.Args[1:])
	stop()
	os.Exit(code)
}

// stopSignals end a command as Ctrl+C does: its deferred clean-up runs
// (held keys and buttons released, the discovery file removed). SIGHUP is
// one (the terminal of `uiscope mcp --http ... &` closed), unless the
// process was started with it ignored (nohup), which is left so.
func stopSignals() []os.Signal {
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return sigs
}

func run(ctx context.Context, c *cli, args []string) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(c.stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(c.stderr, "uiscope: unknown command %q\n\n", args[0])
		usage(c.stderr)
		return 2
	}
	err := cmd.run(ctx, c, args[1:])
	var ee exitError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ee):
		return ee.code
	default:
		fmt.Fprintf(c.stderr, "uiscope %s: %v\n", cmd.name, err)
		return 1
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: uiscope <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-11s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'uiscope <command> -h' for a command's flags.")
}

// newFlags returns a flag set that reports errors instead of exiting.
func newFlags(c *cli, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet("uiscope "+name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.Usage = func() {
		fmt.Fprintf(c.stderr, "usage: uiscope %s %s\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}
