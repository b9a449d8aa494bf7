package api

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/turnback/turnback/internal/model"
)

// FuzzAnswer feeds the client any answer body, as an error (409) or as
// each document it reads back: it returns an error or the model's
// values, never panics, and an error document of a known kind matches
// that kind's sentinels.
func FuzzAnswer(f *testing.F) {
	f.Add(true, []byte(`{"error":"turnback: conflict","exit_code":3,"kind":"conflict","result":{"turns_undone":1,"turns":[{"session":"s","turn":1,"before":"","open":false,"started":"2026-01-01T00:00:00Z"}],"conflicts":[{"path":"a","reason":"edited"}],"checkpoint":"zz"}}`))
	f.Add(true, []byte(`{"error":"turnback: the pulled turns are not in the folder","exit_code":1,"kind":"not_applied"}`))
	f.Add(true, []byte(`{"error":"x","exit_code":2,"kind":"ambiguous_session","sessions":[{"name":"a","short":"a","turns":1,"redo":0,"open":true}],"stopping":"signal"}`))
	f.Add(false, []byte(`{"snapshot":"","session":"s","turn":1,"closed":{"turn":1,"before":"00","partly_undone":["a"]},"retention_error":"r"}`))
	f.Add(false, []byte(`{"id":"","entries":[{"path":"a","entry":{"name":"a","kind":"fifo","mode":420}}],"turns":[null]}`))
	f.Add(false, []byte(`{"base":"","changes":[{"path":"a","change":"added","new":{"name":"a","kind":"bogus"}}]}`))
	c := &Client{socket: "sock", storeDir: "store"}
	resp := func(failed bool, data []byte) *http.Response {
		code := http.StatusOK
		if failed {
			code = http.StatusConflict
		}
		return &http.Response{StatusCode: code, Status: http.StatusText(code), Body: io.NopCloser(bytes.NewReader(data))}
	}
	f.Fuzz(func(t *testing.T, failed bool, data []byte) {
		var r RestoreResponse
		if err := c.answer(resp(failed, data), &r); err != nil {
			if failed && errors.As(err, new(*model.ConflictError)) && !errors.Is(err, model.ErrConflict) {
				t.Fatalf("a *ConflictError that is not ErrConflict: %v", err)
			}
			return
		}
		_, _ = r.result()
		var s SnapResponse
		if c.answer(resp(false, data), &s) == nil {
			_, _ = s.result()
		}
		var sh ShowResponse
		if c.answer(resp(false, data), &sh) == nil {
			_, _ = TurnsOfJSON(sh.Turns)
			for _, pe := range sh.Entries {
				_, _ = pe.Entry.entry()
			}
		}
		var st StatusResponse
		if c.answer(resp(false, data), &st) == nil {
			for _, ch := range st.Changes {
				_, _ = ch.change()
			}
		}
		var tc TurnChangesResponse
		if c.answer(resp(false, data), &tc) == nil {
			_, _ = tc.Turn.turn()
		}
	})
}

// TestAnswerKinds: an error document's kind is the error's sentinel here
// (not_applied: ErrNotApplied), and a daemon stopping wraps it.
func TestAnswerKinds(t *testing.T) {
	c := &Client{socket: "sock", storeDir: "store"}
	for _, tc := range []struct {
		body string
		is   error
	}{
		{`{"error":"turnback: no","exit_code":1,"kind":"not_applied"}`, model.ErrNotApplied},
		{`{"error":"turnback: no","exit_code":3,"kind":"diverged"}`, model.ErrDiverged},
		{`{"error":"turnback: no","exit_code":4,"kind":"busy","stopping":"signal"}`, model.ErrBusy},
		{`{"error":"turnback: no","exit_code":3,"kind":"conflict"}`, model.ErrConflict},
	} {
		resp := &http.Response{StatusCode: http.StatusConflict, Status: "409 Conflict", Body: io.NopCloser(bytes.NewReader([]byte(tc.body)))}
		err := c.answer(resp, &RestoreResponse{})
		if !errors.Is(err, tc.is) || err.Error() == "" {
			t.Errorf("%s: %v, want one matching %v", tc.body, err, tc.is)
		}
	}
}
