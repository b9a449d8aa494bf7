package daemon

// The HTTP API's documents of failure: how errors map to statuses,
// exit codes and kinds, and how request bodies are read (api_server.go).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/api"
)

func writeAPIJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		status, data = http.StatusInternalServerError, []byte(`{"error":"turnback: api: cannot encode the answer","exit_code":1,"kind":"error"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)+1))
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}

func writeAPIError(w http.ResponseWriter, status int, e *api.ErrorResponse) {
	writeAPIJSON(w, status, e)
}

// badRequest is an error of the request itself: 400, exit code 2.
type badRequest struct{ msg string }

func (e badRequest) Error() string { return "turnback: api: " + e.msg }

// opConflict is a conflict of op ("undo", "redo", "restore"): its
// result counts turns_undone or turns_redone.
type opConflict struct {
	op  string
	err error
}

func (e opConflict) Error() string { return e.err.Error() }
func (e opConflict) Unwrap() error { return e.err }

// verifyFailed is a verify that found damage, with what it found.
type verifyFailed struct {
	res *turnback.VerifyResult
	err error
}

func (e verifyFailed) Error() string { return e.err.Error() }
func (e verifyFailed) Unwrap() error { return e.err }

// tooLarge: the body is over MaxRequestBody.
var errTooLarge = fmt.Errorf("turnback: api: the request body is over %d bytes", MaxRequestBody)

// apiErrorDoc maps an error to its status and document: the exit code
// is the one the CLI exits with for it.
func apiErrorDoc(err error) (int, *api.ErrorResponse) {
	doc := &api.ErrorResponse{Error: err.Error(), ExitCode: 1, Kind: "error"}
	var ce *turnback.ConflictError
	var br badRequest
	status := http.StatusInternalServerError
	switch {
	case errors.As(err, &ce):
		status, doc.ExitCode, doc.Kind = http.StatusConflict, 3, "conflict"
		op := "undo"
		var oc opConflict
		if errors.As(err, &oc) {
			op = oc.op
		}
		doc.Result = restoreResponse(op, ce.Result)
	case errors.As(err, &br):
		status, doc.ExitCode, doc.Kind = http.StatusBadRequest, 2, "bad_request"
	case errors.As(err, new(errNoEndpoint)):
		status, doc.ExitCode, doc.Kind = http.StatusNotFound, 2, "not_found"
	case errors.Is(err, turnback.ErrDiverged):
		status, doc.ExitCode, doc.Kind = http.StatusConflict, 3, "diverged"
	case errors.Is(err, turnback.ErrNotApplied):
		status, doc.Kind = http.StatusConflict, "not_applied" // the CLI exits 1: nothing to resolve by force
	case errors.Is(err, turnback.ErrBadSession):
		status, doc.ExitCode, doc.Kind = http.StatusBadRequest, 2, "bad_session"
	case errors.Is(err, errWrongDaemon):
		status, doc.Kind = http.StatusMisdirectedRequest, "wrong_daemon"
	case errors.Is(err, errTooLarge):
		status, doc.ExitCode, doc.Kind = http.StatusRequestEntityTooLarge, 2, "too_large"
	case errors.Is(err, turnback.ErrInvalidMeta):
		status, doc.ExitCode, doc.Kind = http.StatusBadRequest, 2, "invalid_meta"
	case errors.Is(err, turnback.ErrPath):
		status, doc.ExitCode, doc.Kind = http.StatusBadRequest, 2, "bad_path"
	case errors.Is(err, turnback.ErrAmbiguousSession):
		status, doc.ExitCode, doc.Kind = http.StatusBadRequest, 2, "ambiguous_session"
		var ae *turnback.AmbiguousSessionError
		if errors.As(err, &ae) && ae.Name == "" {
			for _, s := range ae.Sessions {
				doc.Sessions = append(doc.Sessions, s)
			}
		}
	case errors.Is(err, turnback.ErrBusy):
		status, doc.ExitCode, doc.Kind = http.StatusServiceUnavailable, 4, "busy"
	case errors.Is(err, turnback.ErrBadRef):
		status, doc.ExitCode, doc.Kind = http.StatusBadRequest, 2, "bad_ref"
	case errors.Is(err, turnback.ErrNoTurn):
		status, doc.Kind = http.StatusNotFound, "no_turn"
	case errors.Is(err, turnback.ErrNoSession):
		status, doc.Kind = http.StatusNotFound, "no_session"
	case errors.Is(err, turnback.ErrOpenTurn):
		status, doc.Kind = http.StatusConflict, "open_turn"
	case errors.Is(err, turnback.ErrUnknownID):
		status, doc.Kind = http.StatusNotFound, "unknown_id"
	case errors.Is(err, turnback.ErrAmbiguousID):
		status, doc.Kind = http.StatusBadRequest, "ambiguous_id"
	case errors.Is(err, turnback.ErrUnfinished):
		doc.Kind = "unfinished"
	case errors.Is(err, turnback.ErrUnverified):
		doc.Kind = "unverified"
	case errors.Is(err, turnback.ErrNoSpace):
		status, doc.Kind = http.StatusInsufficientStorage, "no_space"
	case errors.Is(err, turnback.ErrReadOnly):
		status, doc.Kind = http.StatusForbidden, "read_only"
	case errors.Is(err, turnback.ErrVerify):
		doc.Kind = "verify"
		var vf verifyFailed
		if errors.As(err, &vf) {
			doc.Verify = vf.res
		}
	}
	return status, doc
}

// decode reads the request's one JSON document into v; an empty body
// is {}.
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBody))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return errTooLarge
	}
	if err != nil {
		return badRequest{"reading the body: " + err.Error()}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return badRequest{"malformed JSON: " + typeMismatch(v, te)}
		}
		return badRequest{"malformed JSON: " + err.Error()}
	}
	if dec.More() {
		return badRequest{"malformed JSON: more than one document"}
	}
	if _, err := dec.Token(); err != io.EOF {
		return badRequest{"malformed JSON: data after the document"}
	}
	return strictKeys(data, v)
}

// nonNil is s, or an empty slice for nil: a list in a document is [],
// never null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// idOrEmpty is h in hex, "" for the zero hash.
func idOrEmpty(h cas.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()
}

// sameDir reports whether a and b name the same directory.
func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}
