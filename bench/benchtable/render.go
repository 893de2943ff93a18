package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// render writes the tables of one run. Every result lands in exactly one
// table: those no table below knows go to the last, with all their figures.
func render(r *benchRun) string {
	var b strings.Builder
	used := map[string]bool{}
	b.WriteString("Written by `make bench` from its `bench.out` (`go run ./bench/benchtable`)")
	if r.cpu != "" {
		fmt.Fprintf(&b, " on %s", r.cpu)
	}
	b.WriteString(". Medians unless a table says otherwise; calls are the D-Bus calls of one read.\n")
	for _, section := range []func(*strings.Builder, *benchRun, map[string]bool){
		agentTable, desktopsTable, treeTable, cliTable, mcpTable, valuesTable, screenshotTable, liveTable, otherTable,
	} {
		section(&b, r, used)
	}
	return b.String()
}

// with returns the results whose name starts with prefix, marking them used.
func with(r *benchRun, used map[string]bool, prefix string) []result {
	var out []result
	for _, res := range r.results {
		if strings.HasPrefix(res.name, prefix) && !used[res.name] {
			used[res.name] = true
			out = append(out, res)
		}
	}
	return out
}

// agentCases names BenchmarkAgentTasks's tasks.
var agentCases = map[string]string{
	"gedit":             "gedit (GTK 3): type, Save As, type, close, Save",
	"mousepad":          "mousepad (GTK 3): type, Save As",
	"gnome-text-editor": "GNOME Text Editor (GTK 4): type, Save As",
	"kwrite":            "KWrite (Qt 5): new document, type, File ▸ Save As…",
	"writer":            "LibreOffice Writer: type two paragraphs, Save As .odt",
	"evince":            "Evince: read a PDF page's text",
	"calc":              "LibreOffice Calc: set a cell, save the sheet",
	"speedcrunch":       "SpeedCrunch (Qt 5): evaluate 12*7, read the result",
	"firefox-todo":      "Firefox: add three to-dos, check one off, read the status",
}

// agentSection is the agent task table alone (the README shows it): each
// task's calls, answer bytes and wall time scripted today's way and the
// loop's, with the ratios and a total row; "" without those results.
func agentSection(r *benchRun) string {
	type way struct{ calls, bytes, wall float64 }
	type task struct {
		name        string
		today, loop *way
	}
	var tasks []*task
	byName := map[string]*task{}
	for _, res := range r.results {
		rest, ok := strings.CutPrefix(res.name, "BenchmarkAgentTasks/")
		if !ok {
			continue
		}
		name, kind := splitLast(rest)
		tk := byName[name]
		if tk == nil {
			tk = &task{name: name}
			byName[name] = tk
			tasks = append(tasks, tk)
		}
		w := &way{res.metrics["calls/op"], res.metrics["bytes/op"], res.metrics["wall-ms/op"]}
		switch kind {
		case "today":
			tk.today = w
		case "loop":
			tk.loop = w
		}
	}
	var b strings.Builder
	var sumToday, sumLoop way
	rows := 0
	for _, tk := range tasks {
		if tk.today == nil || tk.loop == nil {
			continue
		}
		if rows == 0 {
			b.WriteString("| task | calls, today → loop | answer bytes, today → loop | wall time, today → loop |\n|---|---|---|---|\n")
		}
		rows++
		label := tk.name
		if l, ok := agentCases[tk.name]; ok {
			label = l
		}
		a, o := *tk.today, *tk.loop
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", label, fewer(a.calls, o.calls, count), fewer(a.bytes, o.bytes, size), fewer(a.wall, o.wall, seconds))
		sumToday.calls, sumToday.bytes, sumToday.wall = sumToday.calls+a.calls, sumToday.bytes+a.bytes, sumToday.wall+a.wall
		sumLoop.calls, sumLoop.bytes, sumLoop.wall = sumLoop.calls+o.calls, sumLoop.bytes+o.bytes, sumLoop.wall+o.wall
	}
	if rows == 0 {
		return ""
	}
	a, o := sumToday, sumLoop
	fmt.Fprintf(&b, "| **all %d tasks** | %s | %s | %s |\n", rows, fewer(a.calls, o.calls, count), fewer(a.bytes, o.bytes, size), fewer(a.wall, o.wall, seconds))
	return b.String()
}

func agentTable(b *strings.Builder, r *benchRun, used map[string]bool) {
	table := agentSection(r)
	with(r, used, "BenchmarkAgentTasks/")
	if table == "" {
		return
	}
	b.WriteString("\nWhole tasks in real apps (`BenchmarkAgentTasks`), each scripted two ways from a fresh app to the same end state, " +
		"read outside uiscope: today's (one action per call, a read after each to learn what it caused) and the agent loop's " +
		"(what an action's answer says, several steps in one call); MCP calls, the bytes of their answers' text blocks, " +
		"and the wall time of the calls (× is today's figure over the loop's):\n\n")
	b.WriteString(table)
}

// desktopCalls names BenchmarkMCPDesktops's measures, in the table's order.
var desktopCalls = []struct{ name, label string }{
	{"start", "sandbox start, until the desktop is ready"},
	{"type_text", "`type_text`, 100 characters, verified"},
	{"screenshot", "`screenshot` of a %s window"},
	{"click", "`click` by pointer (a slider), round trip"},
}

// desktopsSection is the X11 and sway table alone (the README shows it):
// each measure's median on each desktop; "" without those results.
func desktopsSection(r *benchRun) string {
	var kinds []string
	got := map[string]map[string]float64{} // kind/call -> metrics
	for _, res := range r.results {
		rest, ok := strings.CutPrefix(res.name, "BenchmarkMCPDesktops/")
		if !ok {
			continue
		}
		kind, call, ok := strings.Cut(rest, "/")
		if !ok {
			continue
		}
		if !slices.Contains(kinds, kind) {
			kinds = append(kinds, kind)
		}
		got[kind+"/"+call] = res.metrics
	}
	if len(kinds) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("| |")
	for _, k := range kinds {
		b.WriteString(" " + k + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(kinds)) + "\n")
	for _, c := range desktopCalls {
		label := c.label
		if strings.Contains(label, "%s") {
			size := ""
			for _, k := range kinds {
				if m, ok := got[k+"/"+c.name]; ok && m["width-px"] > 0 {
					size = fmt.Sprintf("%.0f×%.0f", m["width-px"], m["height-px"])
				}
			}
			label = fmt.Sprintf(label, size)
		}
		row, have := "| "+label+" |", false
		for _, k := range kinds {
			m, ok := got[k+"/"+c.name]
			if !ok {
				row += " |"
				continue
			}
			have = true
			row += " " + ms(m["median-ms/call"]) + " |"
		}
		if have {
			b.WriteString(row + "\n")
		}
	}
	return b.String()
}

func desktopsTable(b *strings.Builder, r *benchRun, used map[string]bool) {
	table := desktopsSection(r)
	with(r, used, "BenchmarkMCPDesktops/")
	if table == "" {
		return
	}
	b.WriteString("\nThe same calls on each sandbox desktop (`BenchmarkMCPDesktops`), through a real `uiscope mcp --allow-input` on the GTK 3 fixture, " +
		"its window 1280×800 (on sway floating, with no border: sway's tabs fill the output); the sandbox's start is `sandbox.Start` until the desktop is ready, medians of 10:\n\n")
	b.WriteString(table)
}

// fewer formats "today → loop (ratio×)", the ratio being today over loop.
func fewer(today, loop float64, f func(float64) string) string {
	if loop <= 0 {
		return f(today) + " → " + f(loop)
	}
	return fmt.Sprintf("%s → %s (%s)", f(today), f(loop), strconv.FormatFloat(today/loop, 'f', 1, 64)+"×")
}

// size formats bytes: "931 B", "28.5 KB".
func size(v float64) string {
	if v < 1000 {
		return strconv.FormatFloat(v, 'f', 0, 64) + " B"
	}
	return strconv.FormatFloat(v/1000, 'f', 1, 64) + " KB"
}

// seconds formats milliseconds as seconds: "4.3 s".
func seconds(v float64) string {
	return strconv.FormatFloat(v/1000, 'f', 1, 64) + " s"
}

func treeTable(b *strings.Builder, r *benchRun, used map[string]bool) {
	rows := with(r, used, "BenchmarkTree/")
	if len(rows) == 0 {
		return
	}
	b.WriteString("\nTree reads (`BenchmarkTree`): the whole raw tree in process, against the pyatspi peer's walk of the same app:\n\n")
	b.WriteString("| app | read | nodes | uiscope | pyatspi peer | ratio |\n|---|---|---|---|---|---|\n")
	for _, res := range rows {
		app, kind := splitLast(strings.TrimPrefix(res.name, "BenchmarkTree/"))
		read, peer := kind, "pyatspi"
		switch kind {
		case "walk":
			read, peer = "cold", "cache cleared"
		case "mirror":
			read, peer = "repeated (the mirror)", "cache kept"
		}
		m := res.metrics
		nodes := count(m["nodes"])
		if pn, ok := m["pyatspi-nodes"]; ok && pn != m["nodes"] {
			nodes += " (pyatspi: " + count(pn) + ")"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s (%s calls) | %s (%s) | %s |\n",
			app, read, nodes, ms(m["median-ms"]), count(m["calls"]), ms(m["pyatspi-median-ms"]), peer, times(m["ratio"]))
	}
}

func cliTable(b *strings.Builder, r *benchRun, used map[string]bool) {
	rows := with(r, used, "BenchmarkCLITree/")
	if len(rows) == 0 && r.rss == "" {
		return
	}
	b.WriteString("\nThe CLI (`BenchmarkCLITree`): `uiscope tree --pid N --format json`, the whole process, with action names:\n\n")
	if len(rows) > 0 {
		b.WriteString("| app | whole process | tree read | calls | nodes |\n|---|---|---|---|---|\n")
		for _, res := range rows {
			m := res.metrics
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", strings.TrimPrefix(res.name, "BenchmarkCLITree/"),
				ms(m["median-ms"]), ms(m["fetch-median-ms"]), count(m["calls"]), count(m["nodes"]))
		}
	}
	if r.rss != "" {
		fmt.Fprintf(b, "\n`scripts/bench-rss.sh`: %s\n", r.rss)
	}
}

// mcpCases names BenchmarkMCPTree's cases.
var mcpCases = map[string]string{
	"outline": "get_a11y_tree, outline",
	"json":    "get_a11y_tree, json (with action names)",
	"find":    `find_elements role "push button"`,
}

// actCases names BenchmarkMCPAct's cases.
var actCases = map[string]string{
	"invoke":           "invoke that changes its element (a GTK 3 check button)",
	"invoke-no-change": "invoke that changes nothing the app reports",
	"toggle":           "toggle (a GTK 3 check button, read back)",
	"type_text":        "type_text, 100 characters into a GTK 3 entry, read back",
}

func mcpTable(b *strings.Builder, r *benchRun, used map[string]bool) {
	trees, acts := with(r, used, "BenchmarkMCPTree/"), with(r, used, "BenchmarkMCPAct/")
	if len(trees) == 0 && len(acts) == 0 {
		return
	}
	b.WriteString("\nMCP tool calls through the SDK client and a real `uiscope mcp` (`BenchmarkMCPTree`, `BenchmarkMCPAct`):\n\n")
	b.WriteString("| call | cold (first after connect) | warm (repeated on one session) |\n|---|---|---|\n")
	type row struct{ label, cold, warm string }
	var rows []*row
	byLabel := map[string]*row{}
	var ratios []string
	for _, res := range trees {
		rest, kind := splitLast(strings.TrimPrefix(res.name, "BenchmarkMCPTree/"))
		app, c := splitLast(rest)
		label := c
		if l, ok := mcpCases[c]; ok {
			label = l
		}
		label += ", " + app
		rw := byLabel[label]
		if rw == nil {
			rw = &row{label: label}
			byLabel[label] = rw
			rows = append(rows, rw)
		}
		v := ms(res.metrics["median-ms/call"])
		if _, wire := res.metrics["wire-ratio-pyatspi-cache-kept"]; wire {
			// The json read's warm run reports its median twice, through
			// the SDK's client and then as bytes on the wire; the metric
			// keeps the second.
			v += " on the wire"
		}
		if kind == "cold" {
			rw.cold = v
		} else {
			rw.warm = v
		}
		if k, ok := res.metrics["ratio-pyatspi-cache-kept"]; ok {
			ratios = append(ratios, fmt.Sprintf("%s: %s (cache kept) and %s (cache cleared) through the SDK's client, %s and %s on the wire",
				app, times(k), times(res.metrics["ratio-pyatspi-cache-cleared"]),
				times(res.metrics["wire-ratio-pyatspi-cache-kept"]), times(res.metrics["wire-ratio-pyatspi-cache-cleared"])))
		}
	}
	for _, res := range acts {
		c := strings.TrimPrefix(res.name, "BenchmarkMCPAct/")
		label := c
		if l, ok := actCases[c]; ok {
			label = l
		}
		v := ms(res.metrics["median-ms/call"])
		if cps, ok := res.metrics["median-chars/s"]; ok {
			v = strconv.FormatFloat(cps, 'f', 0, 64) + " characters/s"
		}
		rows = append(rows, &row{label: label, warm: v})
	}
	for _, rw := range rows {
		fmt.Fprintf(b, "| %s | %s | %s |\n", rw.label, rw.cold, rw.warm)
	}
	if len(ratios) > 0 {
		fmt.Fprintf(b, "\nThe warm json read against pyatspi's walk of the same app: %s.\n", strings.Join(ratios, "; "))
	}
}

func valuesTable(b *strings.Builder, r *benchRun, used map[string]bool) {
	rows := with(r, used, "BenchmarkValuesCost/")
	if len(rows) == 0 {
		return
	}
	b.WriteString("\nWhat values cost (`BenchmarkValuesCost`): a cold read with and without values, alternating on one connection:\n\n")
	b.WriteString("| app | without values | with values | time |\n|---|---|---|---|\n")
	for _, res := range rows {
		m := res.metrics
		fmt.Fprintf(b, "| %s | %s (%s calls) | %s (%s calls) | %+.0f%% |\n", strings.TrimPrefix(res.name, "BenchmarkValuesCost/"),
			ms(m["novalues-median-ms"]), count(m["novalues-calls"]), ms(m["values-median-ms"]), count(m["values-calls"]), 100*(m["ratio"]-1))
	}
}

// shotCases names BenchmarkScreenshot's cases.
var shotCases = map[string]string{
	"tree":        "tree read alone",
	"capture":     "capture alone (Composite pixmap + GetImage)",
	"annotated":   "whole screenshot, annotated",
	"clean":       "the same, `annotate: false`",
	"maxWidth683": "the same, `maxWidth: 683`",
	"mcp":         "the `screenshot` tool call through `uiscope mcp`, annotated",
}

func screenshotTable(b *strings.Builder, r *benchRun, used map[string]bool) {
	rows := with(r, used, "BenchmarkScreenshot/")
	if len(rows) == 0 {
		return
	}
	b.WriteString("\nScreenshots of gtk3-widget-factory's window (`BenchmarkScreenshot`), means per call:\n\n")
	b.WriteString("| | wall | CPU | PNG |\n|---|---|---|---|\n")
	for _, res := range rows {
		c := strings.TrimPrefix(res.name, "BenchmarkScreenshot/")
		label := c
		if l, ok := shotCases[c]; ok {
			label = l
		}
		m := res.metrics
		cpu, png := "", ""
		if v, ok := m["cpu-ms/op"]; ok {
			cpu = ms(v)
		}
		if v, ok := m["png-bytes"]; ok {
			png = strconv.FormatFloat(v/1000, 'f', 0, 64) + " KB"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", label, ms(m["ns/op"]/1e6), cpu, png)
	}
}

func liveTable(b *strings.Builder, r *benchRun, used map[string]bool) {
	rows := with(r, used, "BenchmarkLiveNotify")
	for _, res := range rows {
		m := res.metrics
		fmt.Fprintf(b, "\nLive changes (`BenchmarkLiveNotify`): a label's change to `notifications/resources/updated` at the client, p50 %s, p90 %s; the server used %.1f%% of one core.\n",
			ms(m["p50-ms"]), ms(m["p90-ms"]), m["server-cpu-%"])
	}
}

func otherTable(b *strings.Builder, r *benchRun, used map[string]bool) {
	rows := with(r, used, "Benchmark")
	if len(rows) == 0 {
		return
	}
	b.WriteString("\nOther benchmarks:\n\n| benchmark | figures |\n|---|---|\n")
	for _, res := range rows {
		units := make([]string, 0, len(res.metrics))
		for u := range res.metrics {
			units = append(units, u)
		}
		slices.Sort(units)
		var figs []string
		for _, u := range units {
			figs = append(figs, strconv.FormatFloat(res.metrics[u], 'g', 4, 64)+" "+u)
		}
		fmt.Fprintf(b, "| `%s` | %s |\n", res.name, strings.Join(figs, ", "))
	}
}

// splitLast splits "a/b/c" into "a/b" and "c".
func splitLast(s string) (string, string) {
	i := strings.LastIndexByte(s, '/')
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i+1:]
}

// ms formats milliseconds: one decimal below 100, none above.
func ms(v float64) string {
	if v >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64) + " ms"
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " ms"
}

// times formats a ratio: "19.5x", "287x".
func times(v float64) string {
	if v >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64) + "x"
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + "x"
}

// count formats a whole number with thousands separators: "11,947".
func count(v float64) string {
	s := strconv.FormatInt(int64(v+0.5), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
