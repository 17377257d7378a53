package inmem_test

import (
	"testing"

	"github.com/league-engine/league/inmem"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/storetest"
)

func TestStore(t *testing.T) {
	storetest.Run(t, func(*testing.T) league.Store { return inmem.New() })
	storetest.RunArchive(t, func(*testing.T) leaderboard.Archive { return inmem.New() })
	storetest.RunAudit(t, func(*testing.T) league.AuditLog { return inmem.New() })
	storetest.RunLeagueArchive(t, func(*testing.T) interface {
		league.Store
		league.Archive
	} {
		return inmem.New()
	})
}
