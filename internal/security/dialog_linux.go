package security

import (
	"bufio"
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
// with it (Pdeathsig) and when ctx ends. The script writes "shown" on a
// line of its own once its window is mapped, then the answer's key.
func DialogPrompter(python string) Prompter {
	return func(ctx context.Context, p Prompt, started func(pid int), shown func()) (string, error) {
		req, err := json.Marshal(p)
		if err != nil {
			return "", err
		}
		cmd := exec.CommandContext(ctx, python, "-c", consentScript)
		cmd.Stdin = bytes.NewReader(req)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		out, err := cmd.StdoutPipe()
		if err != nil {
			return "", err
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			return "", err
		}
		started(cmd.Process.Pid)
		key := ""
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if line := strings.TrimSpace(sc.Text()); line == "shown" {
				shown()
			} else if line != "" {
				key = line
			}
		}
		if err := cmd.Wait(); err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			return "", fmt.Errorf("%v: %s", err, strings.TrimSpace(errb.String()))
		}
		return key, nil
	}
}
