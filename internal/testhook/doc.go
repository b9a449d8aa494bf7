// Package testhook lets the rest of the module arm package turnback's
// test hooks, so they are not part of turnback's public API. The CLI
// arms them from TURNBACK_TEST_* variables for its crash tests, which
// drive the built binary; the root package's own tests use its
// export_test.go.
package testhook
