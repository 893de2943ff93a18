// Package security holds what keeps an agent inside what the user granted
// (docs/security.md):
//
//   - capabilities (inspect, interact, keyboard) and their refusals;
//   - the application allowlist;
//   - consent: the user's answer, asked once per client and process
//     instance, remembered for the server's run;
//   - rate limits per class of operation;
//   - the audit log.
//
// The core consults it before it reads or acts; the MCP layer wraps every
// tool call in its limits and audit.
//
// It holds no platform code and knows nothing of MCP: a caller names a
// client by an opaque string and an operation by its name, and consent
// shows its questions through a Prompter the caller gives it (on Linux,
// the GTK window of internal/platform/linux, consent.go). A layer test
// keeps its dependencies to the standard library.
package security
