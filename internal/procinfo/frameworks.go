//go:build linux

package procinfo

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Framework is a UI toolkit or runtime found mapped into a process.
type Framework struct {
	Name     string `json:"name"`
	Version  string `json:"version,omitempty"`
	Evidence string `json:"evidence"` // the library or executable it was read from
}

// frameworkLibs maps library file names to toolkits. The version comes
// from the first submatch when the file name carries it.
var frameworkLibs = []struct {
	name    string
	re      *regexp.Regexp
	version func(m []string) string
}{
	{"GTK 3", regexp.MustCompile(`^libgtk-3\.so\.0\.(\d+)\.(\d+)$`), func(m []string) string { return gtkVersion("3", m[1], m[2]) }},
	{"GTK 4", regexp.MustCompile(`^libgtk-4\.so\.1\.(\d+)\.(\d+)$`), func(m []string) string { return gtkVersion("4", m[1], m[2]) }},
	{"GTK 2", regexp.MustCompile(`^libgtk-x11-2\.0\.so\.0\.(\d+)\.(\d+)$`), func(m []string) string { return gtkVersion("2", m[1], m[2]) }},
	{"Qt 5", regexp.MustCompile(`^libQt5Gui\.so\.(5[\d.]*)$`), nil},
	{"Qt 6", regexp.MustCompile(`^libQt6Gui\.so\.(6[\d.]*)$`), nil},
	{"Tk", regexp.MustCompile(`^libtk(\d+\.\d+)\.so`), nil},
	{"Chromium", regexp.MustCompile(`^libcef\.so`), nil},
	{"Electron", regexp.MustCompile(`^libnode\.so`), nil},
	{"Java", regexp.MustCompile(`^libjvm\.so$`), nil},
	{"Java AWT", regexp.MustCompile(`^libawt_xawt\.so$`), nil},
	{"wxWidgets", regexp.MustCompile(`^libwx_gtk\d?u?_core-(\d+\.\d+)\.so`), nil},
	{"Flutter", regexp.MustCompile(`^libflutter_linux_gtk\.so$`), nil},
	{"EFL", regexp.MustCompile(`^libelementary\.so\.(1[\d.]*)$`), nil},
	{"FLTK", regexp.MustCompile(`^libfltk\.so\.(\d[\d.]*)$`), nil},
	{"SDL2", regexp.MustCompile(`^libSDL2-2\.0\.so\.0\.(\d+)\.(\d+)$`), nil},
	{"ATK bridge", regexp.MustCompile(`^libatk-bridge-2\.0\.so`), nil},
	{"Python", regexp.MustCompile(`^libpython(3\.\d+)\.so`), nil},
}

// gtkVersion reads a GTK soname's numbers: the first is minor*100 plus an
// interface age, so libgtk-4.so.1.800.3 is 4.8.3, while GTK 3's second
// number is not the micro version (3.24.38 ships libgtk-3.so.0.2406.32), so
// only 3.24 can be told. The AT-SPI toolkit version is exact when the app is
// on the bus.
func gtkVersion(major, a, b string) string {
	var n int
	fmt.Sscanf(a, "%d", &n)
	if major == "4" {
		return fmt.Sprintf("4.%d.%s", n/100, b)
	}
	return fmt.Sprintf("%s.%d", major, n/100)
}

// Frameworks lists the toolkits mapped into a process, from /proc/PID/maps
// and the executable's name (Chromium- and Electron-based browsers and apps
// link their toolkit statically).
func Frameworks(pid int) ([]Framework, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return frameworks(f, Executable(pid), Cmdline(pid))
}

// frameworks reads a maps listing and the executable's name.
func frameworks(maps io.Reader, exe string, cmdline []string) ([]Framework, error) {
	seen := map[string]bool{}
	var out []Framework
	add := func(fw Framework) {
		if !seen[fw.Name] {
			seen[fw.Name] = true
			out = append(out, fw)
		}
	}
	sc := bufio.NewScanner(maps)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		i := strings.IndexByte(line, '/')
		if i < 0 {
			continue
		}
		path := line[i:]
		base := filepath.Base(path)
		for _, fl := range frameworkLibs {
			m := fl.re.FindStringSubmatch(base)
			if m == nil {
				continue
			}
			fw := Framework{Name: fl.name, Evidence: path}
			switch {
			case fl.version != nil:
				fw.Version = fl.version(m)
			case len(m) > 1:
				fw.Version = m[1]
			}
			add(fw)
		}
	}
	switch b := strings.ToLower(filepath.Base(exe)); {
	case b == "electron" || strings.Contains(strings.Join(cmdline, " "), "electron"):
		add(Framework{Name: "Electron", Evidence: exe})
	case b == "chrome" || b == "chromium" || strings.HasPrefix(b, "chromium") || b == "google-chrome":
		add(Framework{Name: "Chromium", Evidence: exe})
	case b == "java":
		add(Framework{Name: "Java", Evidence: exe})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, sc.Err()
}

// Environ returns the process environment, when it is readable.
func Environ(pid int) (map[string]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return nil, err
	}
	env := map[string]string{}
	for _, kv := range strings.Split(string(b), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env, nil
}
