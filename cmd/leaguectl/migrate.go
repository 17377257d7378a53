package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/league-engine/league/migrations"
	"github.com/league-engine/league/postgres"
)

// migrate applies the database migrations, or with -down-to N rolls back
// those above N: what rolling leagued back to a version that knows only
// migrations up to N needs first (it refuses a database newer than it).
// 0001 holds the data itself, so N is at least 1.
func migrate(ctx context.Context, args []string, out io.Writer) error {
	fs, _ := flags("migrate")
	downTo := fs.Int("down-to", 0, "roll back the migrations above this version (at least 1) instead of applying them")
	pr := output(fs, out)
	if err := parse(fs, args); err != nil {
		return err
	}
	if given(fs, "down-to") && *downTo < 1 {
		return usageError{fmt.Errorf("migrate: -down-to %d: give a version from 1 (0001 holds every settlement; rolling it back would drop them)", *downTo)}
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
	if *downTo > 0 {
		undone, err := migrations.Down(ctx, s.Pool(), *downTo)
		if err != nil {
			return err
		}
		return pr.print(func() error {
			if len(undone) == 0 {
				fmt.Fprintf(out, "the database has no migration above version %d\n", *downTo)
			}
			for _, m := range undone {
				fmt.Fprintln(out, "rolled back", m)
			}
			return nil
		}, migrateJSON{RolledBack: names(undone), Applied: []string{}})
	}
	applied, err := migrations.Apply(ctx, s.Pool())
	if err != nil {
		return err
	}
	return pr.print(func() error {
		if len(applied) == 0 {
			fmt.Fprintln(out, "the database is up to date")
		}
		for _, m := range applied {
			fmt.Fprintln(out, "applied", m)
		}
		return nil
	}, migrateJSON{Applied: names(applied), RolledBack: []string{}})
}

// migrateJSON is migrate -o json: the migrations applied, or rolled back
// with -down-to; none: the database was so already.
type migrateJSON struct {
	Applied    []string `json:"applied"`
	RolledBack []string `json:"rolled_back"`
}

func names[M any](ms []M) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, fmt.Sprint(m))
	}
	return out
}
