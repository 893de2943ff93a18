package mcpserver

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// The bearer token (docs/security.md). Each run makes one: 256 random
// bits, in the discovery file and nowhere else. A request presents either
// the token alone, or the token, a dot and a client key of its own
// choosing (16 to 128 of A-Z a-z 0-9 - _). The key is not checked against
// anything: it names the client for the sessionless era, where nothing
// else can (clients.go). Clients that present the bare token are one
// client there.

// tokenUser is the identity of the bare token.
const tokenUser = "token"

func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("no randomness for the bearer token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// verifyToken checks a presented token against the run's in constant time
// (the comparison's time does not depend on how much of it matched) and
// names who presented it.
func verifyToken(token string) auth.TokenVerifier {
	want := []byte(token)
	return func(_ context.Context, presented string, _ *http.Request) (*auth.TokenInfo, error) {
		secret, key, keyed := strings.Cut(presented, ".")
		if subtle.ConstantTimeCompare([]byte(secret), want) != 1 {
			return nil, fmt.Errorf("%w: not this server's token (it is in the discovery file)", auth.ErrInvalidToken)
		}
		if !keyed {
			return &auth.TokenInfo{UserID: tokenUser}, nil
		}
		if !validClientKey(key) {
			return nil, fmt.Errorf("%w: a client key after the token must be 16 to 128 of A-Z a-z 0-9 - _", auth.ErrInvalidToken)
		}
		sum := sha256.Sum256([]byte(key))
		return &auth.TokenInfo{UserID: "key-" + hex.EncodeToString(sum[:12])}, nil
	}
}

func validClientKey(k string) bool {
	if len(k) < 16 || len(k) > 128 {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
