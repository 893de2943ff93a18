package core

import (
	"fmt"
	"reflect"
	"strconv"
	"unicode/utf8"
)

// quoteLimit is the most characters of caller input an error message
// quotes.
const quoteLimit = 60

// Quote renders caller input for an error message: quoted (%q), and when
// longer than 60 characters, its first 60, an ellipsis and its length, so
// an answer never grows with what the caller sent.
func Quote(s string) string {
	if len(s) <= quoteLimit { // bytes ≥ characters: short for sure
		return strconv.Quote(s)
	}
	n := utf8.RuneCountInString(s)
	if n <= quoteLimit {
		return strconv.Quote(s)
	}
	cut, i := 0, 0
	for cut = range s {
		if i == quoteLimit {
			break
		}
		i++
	}
	return fmt.Sprintf("%s… (%d characters)", strconv.Quote(s[:cut]), n)
}

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
