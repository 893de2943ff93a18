//go:build !linux

package mcpserver

// peerProcess cannot tell a connection's process here.
func peerProcess(string, string) (int, string) { return 0, "" }

// parentProcess cannot be named here.
func parentProcess() (int, string) { return 0, "" }
