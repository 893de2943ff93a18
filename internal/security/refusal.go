package security

import (
	"fmt"
	"time"
)

// Reason codes of refusals: stable strings agents branch on, the same in
// tool results and in the audit log.
const (
	CodeInputNotAllowed = "inputNotAllowed"
	CodeRateLimited     = "rateLimited"
	CodeAppNotAllowed   = "appNotAllowed"
	CodeConsentDenied   = "consentDenied"
	// CodeAuditFailed: an action was not run because its audit record
	// could not be written (--audit-log: a full disk, a removed mount).
	CodeAuditFailed = "auditFailed"
	// CodeClipboardNotAllowed: a paste refused under --apps (the
	// selection may be another application's).
	CodeClipboardNotAllowed = "clipboardNotAllowed"
)

// Refusal is a request the server declined on policy, not a failure of the
// request itself: what was refused, why, and when trying again may succeed
// (RetryAfter zero: not by waiting).
type Refusal struct {
	Code       string
	Msg        string
	RetryAfter time.Duration
}

func (r *Refusal) Error() string { return r.Msg }

func refuse(code, format string, args ...any) *Refusal {
	return &Refusal{Code: code, Msg: fmt.Sprintf(format, args...)}
}
