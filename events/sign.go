package events

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Headers of a webhook delivery.
const (
	// SignatureHeader: "t=<unix seconds>,v1=<hex HMAC-SHA256>": the HMAC,
	// keyed with the webhook's secret, of the timestamp, a dot and the
	// body. While a secret is rotated (two configured), one v1 per secret.
	SignatureHeader = "League-Signature"
	// EventIDHeader and EventTypeHeader repeat the body's id and type.
	EventIDHeader   = "League-Event-Id"
	EventTypeHeader = "League-Event-Type"
	// AttemptHeader counts deliveries of the event to this webhook, from 1.
	AttemptHeader = "League-Delivery-Attempt"
)

// DefaultTolerance is how far from the receiver's clock Verify accepts a
// signature's timestamp: an older delivery replayed by someone who caught
// it is refused.
const DefaultTolerance = 5 * time.Minute

// Sign returns the SignatureHeader value of body sent at t, signed with
// every secret.
func Sign(secrets []string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	var b strings.Builder
	b.WriteString("t=" + ts)
	for _, s := range secrets {
		b.WriteString(",v1=" + hex.EncodeToString(mac(s, ts, body)))
	}
	return b.String()
}

func mac(secret, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// ErrSignature is what Verify returns for a delivery it refuses.
var ErrSignature = errors.New("events: bad signature")

// Verify checks a delivery as a receiver should: header is the
// SignatureHeader received, body the raw body, now the receiver's clock.
// It accepts when one v1 signature is the HMAC of the timestamp and body
// under secret, and the timestamp is within tolerance of now (0:
// DefaultTolerance).
func Verify(secret, header string, body []byte, now time.Time, tolerance time.Duration) error {
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	var ts string
	var sigs [][]byte
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			if sig, err := hex.DecodeString(v); err == nil {
				sigs = append(sigs, sig)
			}
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: no timestamp t=", ErrSignature)
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return fmt.Errorf("%w: timestamp %s is %s from now", ErrSignature, time.Unix(sec, 0).UTC().Format(time.RFC3339), d.Round(time.Second))
	}
	want := mac(secret, ts, body)
	for _, sig := range sigs {
		if hmac.Equal(sig, want) {
			return nil
		}
	}
	return fmt.Errorf("%w: no v1 signature matches", ErrSignature)
}
