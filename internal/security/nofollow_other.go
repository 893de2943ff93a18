//go:build !unix

package security

const oNoFollow = 0

const oNonBlock = 0
