package daemon

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/api"
)

// TestOpenAPIRoutes checks openapi.json against the running
// server: every route it serves is documented with its method, and
// every documented operation exists (a request to it is answered by
// its handler: never "no such endpoint", never "method not allowed").
// It also checks that the document is what /v1/openapi.json serves and
// that every schema it names is defined.
func TestOpenAPIRoutes(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	wt := filepath.Join(dir, "work")
	if err := os.MkdirAll(wt, 0o755); err != nil {
		t.Fatal(err)
	}
	repo, err := turnback.Open(ctx, wt, turnback.Options{Store: filepath.Join(dir, "store"), Local: true})
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	srv := httptest.NewServer(NewHandler(repo))
	defer srv.Close()

	var doc struct {
		OpenAPI    string                                `json:"openapi"`
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	resp, err := http.Get(srv.URL + "/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var served bytes.Buffer
	_, _ = served.ReadFrom(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(served.Bytes(), openAPIDoc) {
		t.Fatal("/v1/openapi.json is not openapi.json")
	}
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi %q, want 3.1.0", doc.OpenAPI)
	}
	for _, name := range regexp.MustCompile(`"#/components/schemas/([A-Za-z]+)"`).FindAllSubmatch(openAPIDoc, -1) {
		if _, ok := doc.Components.Schemas[string(name[1])]; !ok {
			t.Errorf("schema %s is named but not defined", name[1])
		}
	}

	documented := map[string]bool{}
	for path, item := range doc.Paths {
		for method := range item {
			if method == "parameters" {
				continue
			}
			documented[strings.ToUpper(method)+" "+path] = true
		}
	}
	routes := map[string]bool{}
	for _, rt := range apiRoutes {
		routes[rt.method+" "+rt.pattern] = true
		if !documented[rt.method+" "+rt.pattern] {
			t.Errorf("route %s %s is not documented", rt.method, rt.pattern)
		}
	}
	var ops []string
	for op := range documented {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	for _, op := range ops {
		if !routes[op] {
			t.Errorf("%s is documented but not a route", op)
		}
		method, path, _ := strings.Cut(op, " ")
		path = strings.NewReplacer("{session}", "default", "{id}", "00").Replace(path)
		req, _ := http.NewRequest(method, srv.URL+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var e api.ErrorResponse
		_ = json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode == http.StatusMethodNotAllowed || e.Kind == "not_found" {
			t.Errorf("%s: the server answers %d %q", op, resp.StatusCode, e.Error)
		}
	}
	// And what is not documented is not served.
	for _, op := range []string{"GET /v1/nothing", "DELETE /v1/sessions/default/snap", "GET /v2/health"} {
		method, path, _ := strings.Cut(op, " ")
		req, _ := http.NewRequest(method, srv.URL+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s: %d, want 404 or 405", op, resp.StatusCode)
		}
	}
}
