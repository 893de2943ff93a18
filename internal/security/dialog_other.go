//go:build !linux

package security

import "context"

// DialogPrompter has no dialog to show off Linux: every prompt fails,
// which refuses the request.
func DialogPrompter(string) Prompter {
	return func(context.Context, Prompt, func(int), func()) (string, error) { return "", ErrNoDialog }
}
