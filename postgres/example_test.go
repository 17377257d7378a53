package postgres_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/migrations"
	"github.com/league-engine/league/postgres"
)

// Open the store, bring its schema up to date, and settle a period under
// its lease. (Compiled, not run: it needs a database.)
func Example() {
	ctx := context.Background()
	store, err := postgres.Open(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()
	if _, err := migrations.Apply(ctx, store.Pool()); err != nil {
		fmt.Println(err)
		return
	}

	start := time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)
	release, ok, err := store.Lock(ctx, "weekly", start)
	if err != nil || !ok {
		return // another process is settling it
	}
	defer release()
	st, err := store.BeginSettlement(ctx, league.Settlement{League: "weekly", Period: start, PeriodEnd: start.AddDate(0, 0, 7)})
	if err != nil {
		fmt.Println(err)
		return
	}
	st.Players = 1
	err = store.WriteOutcomes(ctx, st, []league.Outcome{
		{Player: "ann", TierBefore: "silver", TierAfter: "gold", Board: 1, Rank: 1, Score: 900, Move: league.Promoted},
	}, nil)
	fmt.Println(err)
}
