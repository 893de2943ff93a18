package core

import (
	"reflect"
	"strconv"

	"github.com/uiscope/uiscope/internal/quote"
)

// Quote renders caller input for an error message (quote.Short): quoted,
// and when longer than quote.Limit characters, its first ones, an ellipsis
// and its length, so an answer never grows with what the caller sent.
func Quote(s string) string { return quote.Short(s) }

// JSONKind names the JSON type of a value decoded from an agent's input,
// for messages: it says what came without quoting it.
func JSONKind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		if v == float64(int64(v)) {
			return "the integer " + strconv.FormatInt(int64(v), 10)
		}
		return "a number with a fraction"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return reflect.TypeOf(v).String()
}
