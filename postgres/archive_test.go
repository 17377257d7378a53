package postgres_test

import (
	"testing"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/storetest"
)

func TestLeagueArchive(t *testing.T) {
	storetest.RunLeagueArchive(t, func(t *testing.T) interface {
		league.Store
		league.Archive
	} {
		s, _ := newStore(t)
		return s
	})
}
