// Package tracing sets up OpenTelemetry traces for leagued: spans for each
// HTTP request (package api), each Redis command or pipeline (redisotel)
// and each Postgres query and transaction (otelpgx), exported by OTLP over
// HTTP. Off unless configured: then nothing is instrumented at all, so a
// deployment without a collector pays nothing.
package tracing

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/exaring/otelpgx"
	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/extra/redisotel/v9"
	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"
)

// Settings say where spans go.
type Settings struct {
	// Endpoint is the OTLP/HTTP collector's base URL (http://host:4318);
	// empty turns tracing off.
	Endpoint string
	// SampleRatio is the share of traces kept (0 < r <= 1), unless the
	// caller's traceparent header says it samples.
	SampleRatio float64
	// ServiceName names the service on every span (default "leagued").
	ServiceName string
}

// Check refuses an endpoint that is no http(s) URL and a ratio outside
// (0, 1].
func (s Settings) Check() error {
	if s.Endpoint == "" {
		return nil
	}
	u, err := url.Parse(s.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("tracing.otlp_endpoint: %q is not an http(s) URL such as http://collector:4318", s.Endpoint)
	}
	if s.SampleRatio <= 0 || s.SampleRatio > 1 {
		return fmt.Errorf("tracing.sample_ratio: %v is outside (0, 1]", s.SampleRatio)
	}
	return nil
}

// Tracing is a running trace pipeline.
type Tracing struct {
	provider *sdktrace.TracerProvider
}

// Start builds the exporter and provider, and makes them (and W3C trace
// context propagation) the process's own. Nil with s.Endpoint empty.
func Start(ctx context.Context, s Settings) (*Tracing, error) {
	if s.Endpoint == "" {
		return nil, nil
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(s.Endpoint+"/v1/traces"))
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	name := s.ServiceName
	if name == "" {
		name = "leagued"
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(s.SampleRatio))),
		sdktrace.WithResource(resource.NewSchemaless(semconv.ServiceName(name))),
	)
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	return &Tracing{provider: tp}, nil
}

// Tracer is the tracer of the named part of the service; nil when off.
func (t *Tracing) Tracer(name string) trace.Tracer {
	if t == nil {
		return nil
	}
	return t.provider.Tracer(name)
}

// Redis adds a span to every command and pipeline of rdb (the EVALSHA of a
// script call among them). Statements are left out: a batch's arguments
// run to kilobytes of player ids.
func (t *Tracing) Redis(rdb redis.UniversalClient) error {
	if t == nil {
		return nil
	}
	return redisotel.InstrumentTracing(rdb, redisotel.WithTracerProvider(t.provider), redisotel.WithDBStatement(false))
}

// Postgres is the tracer to set on a pgx pool's connections (a span per
// query, batch and COPY); nil when off.
func (t *Tracing) Postgres() pgx.QueryTracer {
	if t == nil {
		return nil
	}
	return otelpgx.NewTracer(otelpgx.WithTracerProvider(t.provider))
}

// Stop flushes the spans still buffered, within ctx.
func (t *Tracing) Stop(ctx context.Context) error {
	if t == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return t.provider.Shutdown(ctx)
}
