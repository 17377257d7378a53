package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/league-engine/league/migrations"
	"github.com/league-engine/league/postgres"
)

// migrate applies the database migrations.
func migrate(ctx context.Context, args []string, out io.Writer) error {
	fs, _ := flags("migrate")
	if err := parse(fs, args); err != nil {
		return err
	}
	dsn := os.Getenv("DATABASE_URL")
	if dsn == "" {
		return fmt.Errorf("migrate: DATABASE_URL is not set")
	}
	s, err := postgres.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer s.Close()
	applied, err := migrations.Apply(ctx, s.Pool())
	if err != nil {
		return err
	}
	if len(applied) == 0 {
		fmt.Fprintln(out, "the database is up to date")
	}
	for _, m := range applied {
		fmt.Fprintln(out, "applied", m)
	}
	return nil
}
