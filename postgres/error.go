package postgres

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/league-engine/league/league"
)

// SQLSTATE codes the store tells apart.
const (
	uniqueViolation = "23505"
	undefinedTable  = "42P01"
)

// storeError translates an error of pgx into the league's codes, once, for
// every method: no rows is NotFound, a unique violation Conflict, a database
// out of reach Unavailable (retry later) and anything else Internal, with
// the cause kept for the log. league errors pass through.
func storeError(op string, err error) error {
	if err == nil {
		return nil
	}
	var le *league.Error
	if errors.As(err, &le) {
		return err
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return &league.Error{Code: league.NotFound, Message: op + ": not found", Err: err}
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == uniqueViolation {
		return &league.Error{Code: league.Conflict, Message: op + ": already recorded", Err: err}
	}
	if errors.As(err, &pe) && pe.Code == undefinedTable {
		return &league.Error{Code: league.Unavailable, Err: err, Message: op + ": the database has no league tables (" + pe.Message +
			"): run leaguectl migrate, or start leagued, which migrates"}
	}
	if unavailable(err) {
		return &league.Error{Code: league.Unavailable, Message: op + ": postgres unavailable", Err: err}
	}
	return &league.Error{Code: league.Internal, Message: op, Err: err}
}

// unavailable reports whether err says the database cannot be reached now,
// rather than that the request was wrong.
func unavailable(err error) bool {
	// Checked first: a server that refuses the connection (a database that
	// does not exist or allows no connections, a failed login) answers with
	// a PgError wrapped in the ConnectError.
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case strings.HasPrefix(pe.Code, "08"): // connection exception
			return true
		case strings.HasPrefix(pe.Code, "53"): // insufficient resources: too many connections, disk full
			return true
		case pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03": // shutting down, starting up
			return true
		case pe.Code == "57014": // query canceled, by statement_timeout or our context
			return true
		}
		return false
	}
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		pgconn.Timeout(err) || pgconn.SafeToRetry(err) || errors.As(err, &ne) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}
