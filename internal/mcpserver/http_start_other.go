//go:build !linux

package mcpserver

// startTime cannot be read here: a discovery file's pid alone tells.
func startTime(int) uint64 { return 0 }
