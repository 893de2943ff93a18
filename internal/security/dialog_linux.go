package security

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
)

//go:embed consent.py
var consentScript string

// DialogPrompter shows prompts as a small GTK 3 window run by python3
// (the Debian interpreter, with PyGObject): a child of the server, killed
// with it (Pdeathsig) and when ctx ends.
func DialogPrompter(python string) Prompter {
	return func(ctx context.Context, p Prompt, started func(pid int)) (string, error) {
		req, err := json.Marshal(p)
		if err != nil {
			return "", err
		}
		cmd := exec.CommandContext(ctx, python, "-c", consentScript)
		cmd.Stdin = bytes.NewReader(req)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			return "", err
		}
		started(cmd.Process.Pid)
		if err := cmd.Wait(); err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			return "", fmt.Errorf("%v: %s", err, strings.TrimSpace(errb.String()))
		}
		return strings.TrimSpace(out.String()), nil
	}
}
