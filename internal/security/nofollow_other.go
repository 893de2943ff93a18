//go:build !unix

package security

const oNoFollow = 0
