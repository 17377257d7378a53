package leaderboard

// SetArchiveChunk makes the archive read closed boards n entries at a
// time, so a test crosses chunks with few members; it returns the undo.
func SetArchiveChunk(n int) (undo func()) {
	was := archiveChunk
	archiveChunk = n
	return func() { archiveChunk = was }
}

// SetAfterTake makes e run f between a write's takes of limits across
// shards and the write itself (reserve.go).
func SetAfterTake(e *Engine, f func()) { e.afterTake = f }

// RefreshPlans has e re-read every shard plan at its next use, as it does
// every few seconds (reshard.go).
func RefreshPlans(e *Engine) { e.refreshPlans() }
