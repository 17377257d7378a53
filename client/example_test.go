package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/league-engine/league/client"
)

// A game server joins a player to the current period of a league, writes
// their score and reads where they stand.
func Example() {
	ctx := context.Background()
	c := client.New(baseURL, gameKey) // e.g. "http://leagued:8080", the game server's key

	p, err := c.Join(ctx, "weekly", client.JoinRequest{PlayerID: "ada", Name: "Ada"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("joined", p.Tier, "on", p.Board)

	// No request id given: the client makes one, so the write can be
	// retried after a 503 or a lost connection and still count once.
	r, err := c.Score(ctx, "weekly", client.ScoreWrite{PlayerID: "ada", Value: 120})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("score", r.Score, "rank", r.Rank, "replayed", r.Replayed)

	pl, err := c.Player(ctx, "weekly", "ada")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("standing", pl.Score, pl.Rank, *pl.Zone)
	// Output:
	// joined bronze on bronze-1
	// score 120 rank 1 replayed false
	// standing 120 1 stay
}

// Errors carry the API's code: compare them with errors.Is.
func ExampleError() {
	ctx := context.Background()
	c := client.New(baseURL, gameKey)

	_, err := c.Score(ctx, "weekly", client.ScoreWrite{PlayerID: "never-joined", Value: 5})
	fmt.Println(errors.Is(err, client.ErrNotJoined))

	var e *client.Error
	if errors.As(err, &e) {
		fmt.Println(e.Status, e.Code)
	}

	// Bad input is refused before sending, as the API would refuse it.
	_, err = c.Score(ctx, "weekly", client.ScoreWrite{PlayerID: "has space", Value: 5})
	if errors.As(err, &e) {
		fmt.Println(errors.Is(err, client.ErrInvalid), e.Field)
	}
	// Output:
	// true
	// 409 not_joined
	// true player_id
}

// ScoreMany splits any number of writes into batches the API takes (1,000
// a call) and returns a result per write.
func ExampleClient_ScoreMany() {
	ctx := context.Background()
	c := client.New(baseURL, gameKey)
	for _, id := range []string{"bo", "cy"} {
		if _, err := c.Join(ctx, "weekly", client.JoinRequest{PlayerID: id, Name: id}); err != nil {
			log.Fatal(err)
		}
	}
	writes := make([]client.ScoreWrite, 1500) // two calls
	for i := range writes {
		writes[i] = client.ScoreWrite{PlayerID: []string{"bo", "cy"}[i%2], Value: 1}
	}
	writes[7].PlayerID = "nobody" // fails alone
	results, err := c.ScoreMany(ctx, "weekly", writes)
	if err != nil {
		log.Fatal(err)
	}
	failed := 0
	for _, r := range results {
		if r.Err != nil {
			failed++
			fmt.Println(r.PlayerID, errors.Is(r.Err, client.ErrNotJoined))
		}
	}
	last := results[len(results)-1]
	fmt.Println(len(results), "results,", failed, "failed; cy's score", last.Score)
	// Output:
	// nobody true
	// 1500 results, 1 failed; cy's score 749
}

// A leaderboard write reaches every board in one call; reads take the top
// of a board or the window around a member.
func ExampleClient_Write() {
	ctx := context.Background()
	c := client.New(baseURL, gameKey)
	for i, m := range []string{"p1", "p2", "p3", "p4"} {
		if _, err := c.Write(ctx, "kills", client.LeaderboardWrite{Member: m, Value: int64(10 * (i + 1))}); err != nil {
			log.Fatal(err)
		}
	}
	top, err := c.Top(ctx, "kills", "day", client.BoardQuery{Limit: 2})
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range top.Entries {
		fmt.Println(e.Rank, e.Member, e.Score)
	}
	around, err := c.Around(ctx, "kills", "all_time", "p2", client.BoardQuery{Limit: 1})
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range around.Entries {
		fmt.Println(e.Rank, e.Member, e.Score)
	}
	// Output:
	// 1 p4 40
	// 2 p3 30
	// 2 p3 30
	// 3 p2 20
	// 4 p1 10
}

// A queued leaderboard answers at once with the write's place in its queue.
func ExampleClient_Write_queued() {
	ctx := context.Background()
	c := client.New(baseURL, gameKey)
	w, err := c.Write(ctx, "peak", client.LeaderboardWrite{Member: "m1", Value: 3})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(w.Queued != nil, len(w.Boards))
	// Output:
	// true 0
}
