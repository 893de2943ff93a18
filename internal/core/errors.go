package core

import (
	"errors"
	"fmt"

	"github.com/uiscope/uiscope/internal/platform"
	"github.com/uiscope/uiscope/internal/security"
)

// Error codes: stable strings that agents and scripts branch on.
const (
	CodeInvalidArgument = "invalidArgument"
	CodeNotFound        = "notFound"
	CodeAmbiguous       = "ambiguous"
	CodeNotAccessible   = "notAccessible"
	CodeNoBus           = "noAccessibilityBus"
	CodeTimeout         = "timeout"
	CodeElementGone     = "elementGone"
	CodeUnknownRef      = "unknownRef"
	CodeMalformedRef    = "malformedRef"
	CodeWrongTree       = "wrongTree"
	CodeOwnershipLost   = "ownershipLost"
	CodeUnknownSession  = "unknownSession"
	CodeTooManySessions = "tooManySessions"
	CodeNotSupported    = "notSupported"
	CodeWindowUnknown   = "windowUnknown"
	CodeInternal        = "internal"
)

// Dispositions: what a failure leaves the caller to do (errorDisposition).
const (
	// DispositionTerminal: the same call fails again; change it, or do
	// something else first.
	DispositionTerminal = "terminal"
	// DispositionTransient: the same call may succeed later.
	DispositionTransient = "transient"
	// DispositionOwnershipLost: the session's application is gone or
	// was replaced; connect again.
	DispositionOwnershipLost = "ownershipLost"
)

// Error is a failure the caller can act on: a code, a message that says
// what to do next, and whether trying again may help.
type Error struct {
	Code        string      `json:"errorCode"`
	Msg         string      `json:"error"`
	Retryable   bool        `json:"retryable"`
	Disposition string      `json:"errorDisposition,omitempty"` // terminal, transient, ownershipLost
	Candidates  []Candidate `json:"candidates,omitempty"`
	// RetryAfterMs says when a refusal by rate limit lifts.
	RetryAfterMs int64 `json:"retryAfterMs,omitempty"`
	// Holds are the holds a holdConflict refusal is about, with whose
	// each is (Hold.Holder).
	Holds []Hold `json:"holds,omitempty"`
	Err   error  `json:"-"`
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an Error.
func Errorf(code string, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...), Disposition: DispositionTerminal}
}

// AsError maps any error to an Error: platform sentinels get their codes and
// advice, anything else is internal.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var r *security.Refusal
	if errors.As(err, &r) {
		e := &Error{Code: r.Code, Msg: r.Msg, Disposition: DispositionTerminal, Err: err}
		if r.RetryAfter > 0 {
			e.Retryable, e.Disposition, e.RetryAfterMs = true, DispositionTransient, max(1, r.RetryAfter.Milliseconds())
		}
		return e
	}
	switch {
	case errors.Is(err, ErrMalformedRef):
		return &Error{Code: CodeMalformedRef, Msg: err.Error(), Disposition: DispositionTerminal, Err: err}
	case errors.Is(err, ErrWrongTree):
		return &Error{Code: CodeWrongTree, Msg: err.Error(), Disposition: DispositionTerminal, Err: err}
	case errors.Is(err, ErrInvalidArgument):
		return &Error{Code: CodeInvalidArgument, Msg: err.Error(), Disposition: DispositionTerminal, Err: err}
	case errors.Is(err, ErrUnknownRef):
		return &Error{Code: CodeUnknownRef, Msg: err.Error(), Disposition: DispositionTerminal, Err: err}
	case errors.Is(err, platform.ErrTimeout):
		return &Error{Code: CodeTimeout, Msg: err.Error() + "; the application may be busy or frozen: try again, or with a larger timeoutMs", Retryable: true, Disposition: DispositionTransient, Err: err}
	case errors.Is(err, platform.ErrElementGone):
		return &Error{Code: CodeElementGone, Msg: err.Error() + "; the element or application went away: re-read the tree", Disposition: DispositionTerminal, Err: err}
	case errors.Is(err, platform.ErrNotAccessible):
		return &Error{Code: CodeNotAccessible, Msg: err.Error() + "; it has no accessibility tree (run 'uiscope doctor' for why)", Disposition: DispositionTerminal, Err: err}
	case errors.Is(err, platform.ErrNoBus):
		return &Error{Code: CodeNoBus, Msg: err.Error() + "; start a desktop with 'uiscope sandbox' or enable accessibility (run 'uiscope doctor')", Disposition: DispositionTerminal, Err: err}
	case errors.Is(err, platform.ErrAppNotFound):
		return &Error{Code: CodeNotFound, Msg: err.Error() + "; list applications with list_apps / 'uiscope apps'", Disposition: DispositionTerminal, Err: err}
	case errors.Is(err, platform.ErrInvalidKeys), errors.Is(err, platform.ErrOutOfRange):
		return &Error{Code: CodeInvalidArgument, Msg: err.Error(), Disposition: DispositionTerminal, Err: err}
	case errors.Is(err, platform.ErrNoEffect):
		return &Error{Code: CodeNoEffect, Msg: err.Error(), Disposition: DispositionTerminal, Err: err}
	case errors.Is(err, platform.ErrNotSupported):
		return &Error{Code: CodeNotSupported, Msg: err.Error(), Disposition: DispositionTerminal, Err: err}
	case errors.Is(err, platform.ErrWindowUnknown):
		return &Error{Code: CodeWindowUnknown, Msg: err.Error() + "; its place on the screen is unknown, so nothing was done: read the tree again (a window may be opening, closing or resizing), or act semantically (invoke, set_value)", Disposition: DispositionTerminal, Err: err}
	}
	return &Error{Code: CodeInternal, Msg: err.Error(), Disposition: DispositionTerminal, Err: err}
}
