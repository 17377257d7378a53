package api_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/league-engine/league/api"
)

// The document, loaded and checked once for the package. Every request a
// test sends through fixture.do is checked against it (see conform): a
// reply that drifts from openapi.yaml fails whichever test got it.
var (
	docOnce   sync.Once
	docRouter routers.Router
	docErr    error
)

func openAPIRouter(tb testing.TB) routers.Router {
	tb.Helper()
	docOnce.Do(func() {
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(api.OpenAPI)
		if err != nil {
			docErr = err
			return
		}
		if docErr = doc.Validate(loader.Context); docErr != nil {
			return
		}
		docRouter, docErr = gorillamux.NewRouter(doc)
	})
	if docErr != nil {
		tb.Fatalf("openapi.yaml: %v", docErr)
	}
	return docRouter
}

// coverage records which operation answered which statuses, for
// TestOpenAPICoversEveryRoute.
var coverage = struct {
	sync.Mutex
	seen map[string]map[int]bool
}{seen: map[string]map[int]bool{}}

var validationOptions = &openapi3filter.Options{
	AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
	IncludeResponseStatus: true, // a status the document does not list fails
	MultiError:            true,
}

// conform checks a request the handler answered, and its reply, against
// the document. The request is checked only when it succeeded (a request
// the server refused may well be one the document forbids too); the reply
// always is. Paths the document does not have must answer 404 or 405.
func conform(tb testing.TB, method, path, body string, header http.Header, w *httptest.ResponseRecorder) {
	tb.Helper()
	router := openAPIRouter(tb)
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header = header.Clone()
	route, params, err := router.FindRoute(req)
	if err != nil {
		if w.Code != http.StatusNotFound && w.Code != http.StatusMethodNotAllowed {
			tb.Errorf("%s %s: not in openapi.yaml (%v) but answered %d", method, path, err, w.Code)
		}
		return
	}
	ctx := context.Background()
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: validationOptions}
	if w.Code < 300 {
		if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
			tb.Errorf("%s %s %s: the server accepted a request openapi.yaml rejects: %v", method, path, body, err)
		}
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: w.Code, Header: w.Header(), Options: validationOptions,
	}
	out.SetBodyBytes(bytes.Clone(w.Body.Bytes()))
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		tb.Errorf("%s %s %s: reply %d drifts from openapi.yaml: %v\nbody: %s", method, path, body, w.Code, err, w.Body)
	}
	coverage.Lock()
	op := route.Operation.OperationID
	if coverage.seen[op] == nil {
		coverage.seen[op] = map[int]bool{}
	}
	coverage.seen[op][w.Code] = true
	coverage.Unlock()
}

// seenStatuses returns the statuses seen per operation, for messages.
func seenStatuses() map[string][]int {
	coverage.Lock()
	defer coverage.Unlock()
	out := map[string][]int{}
	for op, codes := range coverage.seen {
		for c := range codes {
			out[op] = append(out[op], c)
		}
		sort.Ints(out[op])
	}
	return out
}
