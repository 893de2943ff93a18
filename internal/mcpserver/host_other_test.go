//go:build !linux

package mcpserver

import (
	"fmt"
	"os"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/unsupported"
)

// The canned desktop of these tests runs on this machine's real processes,
// read through /proc (host_linux_test.go): elsewhere they build and vet,
// and do not run.
func TestMain(m *testing.M) {
	fmt.Println("mcpserver: the tests read this machine's processes through /proc; Linux only")
	os.Exit(0)
}

func hostProcesses() platform.Processes { return unsupported.Desktop().Processes }

func hostExecutable(int) string { return "" }
