//go:build linux

package linux

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

	"github.com/uiscope/uiscope/internal/security"
)

//go:embed consent.py
var consentScript string

// ConsentPrompter shows the consent dialog's prompts as a small GTK 3
// window run by python (the Debian interpreter, with PyGObject): a child of
// the server, killed with it (Pdeathsig) and when ctx ends. The script
// (consent.py) reads the prompt as JSON on stdin, writes "shown" on a line
// of its own once its window is mapped, then the answer's key.
func ConsentPrompter(python string) security.Prompter {
	return func(ctx context.Context, p security.Prompt, started func(pid int), shown func()) (string, error) {
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
