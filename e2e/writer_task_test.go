//go:build linux

package e2e

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/uiscope/uiscope/internal/testdesk"
)

// odtParagraphs reads the paragraphs of an .odt's content.xml as plain
// text (tags dropped), or an error while the file is not complete yet.
func odtParagraphs(path string) ([]string, error) {
	b, err := zipEntry(path, "content.xml")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range regexp.MustCompile(`(?s)<text:p\b[^>]*?(?:/>|>(.*?)</text:p>)`).FindAllStringSubmatch(string(b), -1) {
		out = append(out, regexp.MustCompile(`<[^>]*>`).ReplaceAllString(m[1], ""))
	}
	return out, nil
}

// zipEntry reads one file of a zip archive (an OpenDocument file).
func zipEntry(path, name string) ([]byte, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	for _, f := range z.File {
		if f.Name != name {
			continue
		}
		r, err := f.Open()
		if err != nil {
			return nil, err
		}
		defer r.Close()
		return io.ReadAll(r)
	}
	return nil, fmt.Errorf("%s has no %s", path, name)
}

// saveAsIn runs a GTK file chooser titled title (LibreOffice's is "Save"):
// the path set in its focused name field, then Enter to it.
func saveAsIn(t *testing.T, s *mcpServer, sess, title, path string) {
	t.Helper()
	chooser := appears(t, s, sess, "the "+title+" dialog", map[string]any{"name": title, "nameMatch": "exact", "role": "file chooser"})
	name := findOne(t, s, sess, map[string]any{"within": chooser.Ref, "role": "text", "states": []string{"editable", "focused"}})
	s.ok(t, "set_value", map[string]any{"session": sess, "element": name.Ref, "value": path})
	s.ok(t, "press_key", map[string]any{"session": sess, "element": name.Ref, "keys": "Enter"})
}

// TestTaskWriterSaveAs: type two paragraphs into Writer's document text
// (the keys go to the paragraph that holds the caret, a descendant), save
// them through Writer's own Save As dialog (the GTK file chooser), and
// find exactly those paragraphs in the .odt on disk.
func TestTaskWriterSaveAs(t *testing.T) { testdesk.ForEach(t, testTaskWriterSaveAs) }

func testTaskWriterSaveAs(t *testing.T, d *testdesk.Desk) {
	app := launchWriter(t, d, []string{""})
	s := startMCP(t, d, "", "--allow-input")
	defer s.logCost(t, "Writer: type two paragraphs, Save As .odt")
	sess := s.connect(t, map[string]any{"pid": app.Pid})

	doc := findOne(t, s, sess, map[string]any{"role": "document text"})
	const first, second = "The first paragraph, typed by the task.", "And the second one."
	typed := s.ok(t, "type_text", map[string]any{"session": sess, "element": doc.Ref, "text": first + "\n" + second})
	// The answer names the paragraph that took the keys, and says the
	// text was read back there.
	if typed["verified"] != true || typed["element"] == doc.Ref || !strings.Contains(fmt.Sprint(typed["detail"]), "inside "+doc.Ref) {
		t.Errorf("type_text into the document: %v", typed)
	}

	path := filepath.Join(t.TempDir(), "typed.odt")
	s.ok(t, "press_key", map[string]any{"session": sess, "keys": "Ctrl+Shift+S"})
	saveAsIn(t, s, sess, "Save", path)
	until(t, "the document saved with its paragraphs", func(_ context.Context) (bool, string) {
		paras, err := odtParagraphs(path)
		if err != nil {
			return false, err.Error()
		}
		return strings.Join(paras, "\n") == first+"\n"+second, fmt.Sprintf("%q", paras)
	})
}
