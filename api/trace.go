package api

import (
	"net/http"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// startSpan starts the request's span, a child of the caller's when its
// traceparent header names one, named by the route pattern ("POST
// /v1/leagues/{league}/scores"): the Redis and Postgres spans of the
// request (internal/tracing) hang under it through the request's context.
func (s *Server) startSpan(r *http.Request, rt *route) (*http.Request, trace.Span) {
	ctx := otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	ctx, span := s.tracer.Start(ctx, rt.pattern, trace.WithSpanKind(trace.SpanKindServer))
	return r.WithContext(ctx), span
}

// endSpan records what the request came to: its status, request id and
// key name (never the key).
func endSpan(span trace.Span, x *exchange, status int) {
	if span.IsRecording() {
		span.SetAttributes(attribute.Int("http.response.status_code", status),
			attribute.String("league.request_id", x.requestID()))
		if x.caller != nil && x.caller.Name != "" {
			span.SetAttributes(attribute.String("league.key", x.caller.Name))
		}
		if status >= 500 {
			span.SetStatus(codes.Error, http.StatusText(status))
		}
	}
	span.End()
}
