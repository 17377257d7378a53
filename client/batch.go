package client

import "context"

// ScoreMany writes any number of scores, MaxBatch a call, in order:
// results[i] is writes[i]'s, with the request id it was sent with (the
// client gives each write without one its own, before splitting). A call
// that fails as a whole, after its retries, sets its error on each of its
// writes and the next calls go on; the error returned is the first such
// one, nil when every call was answered. Send the writes that failed
// again with their request ids: those applied already are replayed, not
// counted twice.
func (c *Client) ScoreMany(ctx context.Context, league string, writes []ScoreWrite) ([]BatchResult, error) {
	ws := make([]ScoreWrite, len(writes))
	for i, w := range writes {
		if w.RequestID == "" {
			w.RequestID = NewRequestID()
		}
		ws[i] = w
	}
	res := make([]BatchResult, len(ws))
	var first error
	for lo := 0; lo < len(ws); lo += MaxBatch {
		hi := min(lo+MaxBatch, len(ws))
		part, err := c.ScoreBatch(ctx, league, ws[lo:hi])
		if err == nil && len(part) != hi-lo {
			err = &Error{Code: "internal", Message: "the batch's reply does not hold one result per write"}
		}
		for i := lo; i < hi; i++ {
			if err != nil {
				res[i] = BatchResult{PlayerID: ws[i].PlayerID, Err: err}
				res[i].RequestID = ws[i].RequestID
			} else {
				res[i] = part[i-lo]
			}
		}
		if err != nil && first == nil {
			first = err
		}
	}
	return res, first
}

// WriteMany sends any number of leaderboard writes, each naming its
// leaderboard, MaxBatch a call, in order, as ScoreMany does: results[i]
// is writes[i]'s, with its request id; a call failed as a whole sets its
// error on each of its writes, and the first such error is returned.
func (c *Client) WriteMany(ctx context.Context, writes []LeaderboardsWrite) ([]LeaderboardWritten, error) {
	ws := make([]LeaderboardsWrite, len(writes))
	for i, w := range writes {
		if w.RequestID == "" {
			w.RequestID = NewRequestID()
		}
		ws[i] = w
	}
	res := make([]LeaderboardWritten, len(ws))
	var first error
	for lo := 0; lo < len(ws); lo += MaxBatch {
		hi := min(lo+MaxBatch, len(ws))
		part, err := c.WriteAcross(ctx, ws[lo:hi])
		if err == nil && len(part) != hi-lo {
			err = &Error{Code: "internal", Message: "the batch's reply does not hold one result per write"}
		}
		for i := lo; i < hi; i++ {
			if err != nil {
				res[i] = LeaderboardWritten{Leaderboard: ws[i].Leaderboard, Member: ws[i].Member, RequestID: ws[i].RequestID, Err: err}
			} else {
				res[i] = part[i-lo]
			}
		}
		if err != nil && first == nil {
			first = err
		}
	}
	return res, first
}
