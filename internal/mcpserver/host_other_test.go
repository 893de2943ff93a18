//go:build !linux

package mcpserver

import (
	"flag"
	"os"
	"testing"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/unsupported"
)

// The canned desktop of most of these tests runs on this machine's real
// processes, read through /proc (host_linux_test.go): elsewhere they build
// and vet, and only the transcripts, on platform/fake, run unless -run
// asks for others.
func TestMain(m *testing.M) {
	flag.Parse()
	if run := flag.Lookup("test.run"); run.Value.String() == "" {
		run.Value.Set("^TestTranscripts$")
	}
	os.Exit(m.Run())
}

func hostProcesses() platform.Processes { return unsupported.Desktop().Processes }

func hostExecutable(int) string { return "" }
