// Package security holds what keeps an agent inside what the user granted:
// capabilities (inspect, interact, keyboard), the application allowlist,
// rate limits per class of operation, the audit log, and the refusals they
// answer with. The core consults it before it reads or acts; the MCP layer
// wraps every tool call in its limits and audit (DESIGN §8 of the project's
// design notes, README "Security").
//
// It holds no platform code and knows nothing of MCP: a caller names a
// client by an opaque string and an operation by its name.
package security
