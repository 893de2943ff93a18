// Package wayland is a Wayland client written in the project (no cgo, no
// libwayland): what uiscope needs from a wlroots compositor (sway) for
// input and pixels.
//
// What it holds:
//   - the wire protocol (wire.go: messages and their arguments; conn.go: a
//     connection over the compositor's unix socket, descriptors over
//     SCM_RIGHTS, round trips, the registry and binding by interface name
//     and version), every call bounded by its context, a protocol error or
//     a compositor gone an error rather than a hang;
//   - shared memory (shm.go): memfd files mapped into the process;
//   - outputs (output.go) and their capture through
//     zwlr_screencopy_manager_v1 into an image (capture.go);
//   - input (input.go, keymap.go): zwp_virtual_keyboard_v1 with a keymap
//     of its own, generated for the text to type, and
//     zwlr_virtual_pointer_v1 (absolute motion, buttons, wheel);
//   - windows as any client may list them (toplevel.go:
//     zwlr_foreign_toplevel_management_v1): titles, app ids, states, and
//     requests to activate, close, maximize, minimize or fullscreen them,
//     for compositors without sway's IPC. It tells no pid and no place.
//
// Where windows are, and whose they are, is not here: sway's IPC gives it.
// Opcodes are written by hand from the protocols' XML.
package wayland
