package postgres

// SetEventChunk makes chunks of player events hold n events until the
// returned function restores the size: tests cross chunk boundaries with
// a few hundred players.
func SetEventChunk(n int) (restore func()) {
	was := eventChunk
	eventChunk = n
	return func() { eventChunk = was }
}
