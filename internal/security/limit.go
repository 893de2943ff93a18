package security

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Class is a class of operations, limited apart.
type Class string

const (
	// Discovery lists applications and opens and closes sessions.
	Discovery Class = "discovery"
	// Inspection reads an application (trees, properties, waits, events).
	Inspection Class = "inspection"
	// Actions act on an application (pointer, semantic actions, keys).
	Actions Class = "actions"
)

// Classes in the order they are listed.
var Classes = []Class{Discovery, Inspection, Actions}

// Limits is the rate of each class per client, in calls per minute; a
// class that is absent or zero is not limited.
type Limits map[Class]int

// DefaultLimits are generous: an agent working fast stays well below them
// (an action takes at least a settle of ~200 ms, a tree read tens of
// milliseconds); they stop a runaway loop, not work.
func DefaultLimits() Limits {
	return Limits{Discovery: 600, Inspection: 6000, Actions: 600}
}

// StrictLimits are --strict's.
func StrictLimits() Limits {
	return Limits{Discovery: 30, Inspection: 60, Actions: 10}
}

// ParseRate reads one --rate-limit value, CLASS=N/min (also N/s; N/min when
// the unit is left out). 0 lifts the class's limit.
func ParseRate(v string) (Class, int, error) {
	name, rate, ok := strings.Cut(v, "=")
	if !ok {
		return "", 0, fmt.Errorf("%q: want CLASS=N/min, e.g. actions=10/min", v)
	}
	c := Class(strings.TrimSpace(strings.ToLower(name)))
	known := false
	for _, k := range Classes {
		known = known || k == c
	}
	if !known {
		return "", 0, fmt.Errorf("%q: unknown class %q; classes are discovery, inspection and actions", v, name)
	}
	num, unit, _ := strings.Cut(strings.TrimSpace(rate), "/")
	n, err := strconv.Atoi(strings.TrimSpace(num))
	if err != nil || n < 0 {
		return "", 0, fmt.Errorf("%q: the rate must be a whole number of calls, like 10/min", v)
	}
	per := 1
	switch strings.TrimSpace(strings.ToLower(unit)) {
	case "", "min", "m", "minute":
	case "s", "sec", "second":
		per = 60
	default:
		return "", 0, fmt.Errorf("%q: unknown unit %q; use /s or /min", v, unit)
	}
	if n > math.MaxInt32/per {
		return "", 0, fmt.Errorf("%q: too large", v)
	}
	return c, n * per, nil
}

// Limiter holds a token bucket per client and class: a client may spend
// its class's whole minute at once, then one call per 1/N minute.
// Clients are limited apart, so one agent's loop does not starve another.
// Safe for concurrent use.
type Limiter struct {
	limits Limits
	now    func() time.Time

	mu      sync.Mutex
	buckets map[bucketKey]*bucket
}

type bucketKey struct {
	client string
	class  Class
}

// bucket holds credit as time: each call costs a minute's share, credit
// accrues with the clock up to a whole minute. Integer time keeps the
// arithmetic exact (a wait of one second is one second, not 999 ms).
type bucket struct {
	credit time.Duration
	last   time.Time
}

// maxBuckets bounds the limiter's memory: past it, buckets that have
// refilled (the same as new ones) are forgotten.
const maxBuckets = 4096

// NewLimiter limits by l (copied).
func NewLimiter(l Limits) *Limiter {
	c := Limits{}
	for k, v := range l {
		c[k] = v
	}
	return &Limiter{limits: c, now: time.Now, buckets: map[bucketKey]*bucket{}}
}

// Limits returns the limits in force.
func (l *Limiter) Limits() Limits {
	c := Limits{}
	for k, v := range l.limits {
		c[k] = v
	}
	return c
}

// Allow spends one call of class for client, or refuses with how long to
// wait until one is free.
func (l *Limiter) Allow(client string, class Class) error {
	if l == nil {
		return nil
	}
	n := l.limits[class]
	if n <= 0 {
		return nil
	}
	cost := time.Minute / time.Duration(n)
	full := cost * time.Duration(n)
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	k := bucketKey{client, class}
	b := l.buckets[k]
	if b == nil {
		if len(l.buckets) >= maxBuckets {
			l.prune(now)
		}
		b = &bucket{credit: full, last: now}
		l.buckets[k] = b
	}
	if el := now.Sub(b.last); el > 0 {
		b.credit = min(full, b.credit+el)
	}
	b.last = now
	if b.credit >= cost {
		b.credit -= cost
		return nil
	}
	wait := (cost - b.credit + time.Millisecond - 1).Truncate(time.Millisecond)
	return &Refusal{Code: CodeRateLimited, RetryAfter: wait, Msg: fmt.Sprintf(
		"rate limit: at most %d %s calls a minute per client; try again in %d ms (retryAfterMs)", n, class, wait.Milliseconds())}
}

// prune forgets the buckets that are full again. The caller holds mu.
func (l *Limiter) prune(now time.Time) {
	for k, b := range l.buckets {
		if n := l.limits[k.class]; n <= 0 || b.credit+now.Sub(b.last) >= time.Minute/time.Duration(n)*time.Duration(n) {
			delete(l.buckets, k)
		}
	}
}
