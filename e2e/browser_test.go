//go:build linux

package e2e

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/platform/atspi"
	"github.com/uiscope/uiscope/internal/testdesk"
)

// Browser launch helpers: Firefox ESR and Chromium on a page the test
// writes, each with a profile of its own, returned once the page's
// document is on the accessibility bus.

// browser is one browser the tests drive the same way.
type browser struct {
	name string
	// launch starts it on pageURL in a fresh profile; it returns once the
	// app is on the bus with a window (testdesk.Launch), not yet once the
	// page is there: see openPage.
	launch func(t testing.TB, d *testdesk.Desk, pageURL string) *testdesk.App
	// addressBar finds the browser's address bar (find_elements arguments).
	addressBar map[string]any
}

// browsers are the browsers every browser test runs on.
var browsers = []browser{
	{name: "firefox", launch: launchFirefox,
		addressBar: map[string]any{"name": "Search or enter address", "nameMatch": "exact", "role": "combo box"}},
	{name: "chromium", launch: launchChromium,
		addressBar: map[string]any{"name": "Address and search bar", "nameMatch": "exact", "role": "entry"}},
}

// writePage writes html to a page in a temporary directory of the test and
// returns its file URL.
func writePage(t testing.TB, name, html string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(html), 0o600); err != nil {
		t.Fatal(err)
	}
	return (&url.URL{Scheme: "file", Path: path}).String()
}

// launchFirefox starts Firefox ESR on pageURL with a fresh home and profile.
func launchFirefox(t testing.TB, d *testdesk.Desk, pageURL string) *testdesk.App {
	t.Helper()
	app := d.Launch(t, append(freshHome(t), "firefox-esr", "-profile", firefoxProfile(t), "-no-remote", pageURL)...)
	waylandNative(t, d, app)
	return app
}

// waylandNative checks, on sway, that the browser's windows are Wayland
// clients' (xdg_shell views of its pid in swaymsg's tree), as the sandbox
// environment asks of it (MOZ_ENABLE_WAYLAND, XDG_SESSION_TYPE).
func waylandNative(t testing.TB, d *testdesk.Desk, app *testdesk.App) {
	t.Helper()
	if d.Sway == nil {
		return
	}
	views := swayViews(t, d, app.Pid)
	if len(views) == 0 {
		t.Fatalf("pid %d has no view in sway's tree", app.Pid)
	}
	for _, v := range views {
		if v.shell != "xdg_shell" {
			t.Fatalf("pid %d's view %d %q is %q, not a Wayland client's (xdg_shell)", app.Pid, v.con, v.title, v.shell)
		}
	}
}

// launchChromium starts Chromium on pageURL with a fresh home and profile
// directory. Chromium exposes its pages to AT-SPI only when asked
// (--force-renderer-accessibility: without it the tree is four empty
// frames), and its sandbox refuses to run as root (--no-sandbox; tests and
// CI run as root). The rest keeps a first start from showing anything but
// the page: no first-run page, no default-browser question, no sign-in or
// translate offers, no keyring prompt.
func launchChromium(t testing.TB, d *testdesk.Desk, pageURL string) *testdesk.App {
	t.Helper()
	home := freshHome(t)
	profile, err := os.MkdirTemp("", "uiscope-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	var app *testdesk.App
	// Registered before the launch, so it runs after the browser is
	// stopped: its helpers (zygote, renderers, utilities) are in its
	// process group and may still write to the profile after it exited,
	// which made a plain t.TempDir's removal fail ("directory not empty").
	t.Cleanup(func() {
		if app != nil {
			_ = syscall.Kill(-app.Pid, syscall.SIGKILL)
		}
		removeAllSoon(t, profile)
	})
	app = d.Launch(t, append(home, "chromium",
		"--force-renderer-accessibility", "--no-sandbox",
		"--user-data-dir="+profile,
		"--no-first-run", "--no-default-browser-check", "--disable-sync",
		"--disable-features=Translate,MediaRouter,OptimizationHints",
		"--password-store=basic", "--disable-background-networking",
		"--disable-component-update", "--disable-default-apps",
		"--new-window", pageURL)...)
	waylandNative(t, d, app)
	return app
}

// removeAllSoon removes dir, trying again while processes that are on
// their way out still write into it.
func removeAllSoon(t testing.TB, dir string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := os.RemoveAll(dir)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("removing %s: %v", dir, err)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// openPage launches b on html (written to a temporary page) and waits until
// the page's document, named title, is on the accessibility bus with at
// least one child: a browser shows its window before the page is exported.
func openPage(t testing.TB, d *testdesk.Desk, b browser, title, html string) *testdesk.App {
	t.Helper()
	app := b.launch(t, d, writePage(t, "page.html", html))
	waitDocument(t, d, app, title)
	return app
}

// waitDocument waits until app's tree holds a document named title with
// children, reading the tree again after each of the app's events (and at
// least every half second: a browser's tree also grows without one).
func waitDocument(t testing.TB, d *testdesk.Desk, app *testdesk.App, title string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	changes, stop, err := d.A11y.Watch(ctx, app.Bus)
	if err != nil {
		t.Fatalf("watching %s's events: %v", app.Bus, err)
	}
	defer stop()
	last := "nothing read"
	for {
		rctx, rcancel := context.WithTimeout(ctx, 30*time.Second)
		root, _, err := d.A11y.Tree(rctx, app.Bus, atspi.TreeOptions{NoDetails: true})
		rcancel()
		if err == nil {
			if doc := findDocument(root, title); doc != nil && len(doc.Children) > 0 {
				return
			}
			last = "documents: " + strings.Join(documents(root), ", ")
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the page %q never showed in the accessibility tree; last seen %s (log: %s)", title, last, app.Proc.LogPath)
		case <-app.Proc.Done():
			t.Fatalf("the browser exited before its page %q showed (log: %s)", title, app.Proc.LogPath)
		case <-changes:
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// isDocument reports whether n is a web document (Gecko and Chromium say
// "document web"; "document frame" for other documents).
func isDocument(n *platform.Node) bool {
	r := n.Role.String()
	return r == "document web" || r == "document frame"
}

// findDocument is the first document in the tree named title.
func findDocument(n *platform.Node, title string) *platform.Node {
	if isDocument(n) && n.Name == title {
		return n
	}
	for _, k := range n.Children {
		if doc := findDocument(k, title); doc != nil {
			return doc
		}
	}
	return nil
}

// documents lists the names of the documents in the tree, for a failure.
func documents(n *platform.Node) []string {
	var out []string
	if isDocument(n) {
		out = append(out, fmt.Sprintf("%q (%d children)", n.Name, len(n.Children)))
	}
	for _, k := range n.Children {
		out = append(out, documents(k)...)
	}
	return out
}

// windowTitle is the title of app's first mapped top-level window, read
// from X11 (on sway from swaymsg's tree) rather than AT-SPI: an
// independent account of the page's title.
func windowTitle(ctx context.Context, d *testdesk.Desk, pid int) string {
	if d.Sway != nil {
		return swayTitle(ctx, d, pid)
	}
	wins, err := d.X.TopLevels(ctx)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	for _, w := range wins {
		if w.Pid == pid && w.Mapped {
			return w.Title
		}
	}
	return "<no window>"
}
