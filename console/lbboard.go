package console

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// A leaderboard's board: one board of one period (the current one, the one
// before, or any other of its kind), a page of lbPageSize ranks at a time,
// or the window around a member, as GET
// /v1/leaderboards/{id}/boards/{kind} reads it. A leaderboard with public
// boards shows them by default, as the API does, and its raw counts on
// request (?view=raw). A page deeper than a sharded leaderboard's
// max_page_depth is not read: the page says so, and offers the window
// around a member instead.

// lbPageSize is how many ranks a page of a board shows.
const lbPageSize = 50

// lbAround is how many ranks above and below a member its window shows.
const lbAround = 10

// lbPeriods is how many periods the board page's period list offers.
const lbPeriods = 12

type lbBoardView struct {
	ID     string
	L      *leaderboard.Leaderboard
	Kind   leaderboard.Kind
	Board  leaderboard.Board
	Period leaderboard.Period
	From   time.Time // a rolling board's window start
	Ends   bool      // the period ends (not all-time)
	// Current is the current period; Prev and Next the periods beside
	// this one ("" for none: all-time, or Next past the current one).
	Current    bool
	Prev, Next string
	Periods    []lbPeriodOption
	Public     bool   // the public twin is shown
	HasPublic  bool   // there is one to switch to
	Around     string // the member whose window is shown
	Offset     int
	PageSize   int
	First      int // rank of the first row shown
	Last       int
	PrevOffset int  // offset of the page before; -1 for none
	NextOffset int  // offset of the page after; -1 for none
	DeepLimit  bool // the next page is past max_page_depth
	TooDeep    bool // this page is: nothing was read
	Behind     int64
	Expired    bool          // the period is past its retention, and not archived: it reads empty
	Retention  time.Duration // of this kind's boards
}

type lbPeriodOption struct {
	ID       string
	Label    string
	Selected bool
}

func (c *Console) lbBoardPage(w http.ResponseWriter, r *http.Request, sess *session) {
	id, kindPath := r.PathValue("leaderboard"), r.PathValue("kind")
	name := kindPath
	if k, err := leaderboard.ParseKind(kindPath); err == nil {
		name = boardName(k)
	}
	title := view{Title: name + " board of " + id, Data: Prefix + "/leaderboards/" + url.PathEscape(id)}
	v, err := c.lbBoard(r)
	if err != nil {
		c.failure(w, r, "message", sess, title, err)
		return
	}
	title.Data = v
	c.render(w, r, http.StatusOK, "lbboard", sess, title)
}

// lbBoard reads the board the request names: ?period= (an id; "" the
// current one), ?view=public|raw, and ?offset= or ?around=member.
func (c *Console) lbBoard(r *http.Request) (lbBoardView, error) {
	id := r.PathValue("leaderboard")
	l, err := c.leaderboard(id)
	if err != nil {
		return lbBoardView{}, err
	}
	k, err := leaderboard.ParseKind(r.PathValue("kind"))
	if err != nil {
		return lbBoardView{}, league.Errorf(league.NotFound, "%v", err)
	}
	e := c.cfg.Leaderboards
	q := r.URL.Query()
	v := lbBoardView{ID: id, L: l, Kind: k, PageSize: lbPageSize, PrevOffset: -1, NextOffset: -1,
		HasPublic: l.PublicBoards && !k.Rolling(), Around: strings.TrimSpace(q.Get("around")), Retention: l.Retention[k]}
	switch q.Get("view") {
	case "":
		v.Public = v.HasPublic
	case "public":
		v.Public = true
	case "raw":
	default:
		return lbBoardView{}, &league.Error{Code: league.Invalid, Field: "view", Message: strconv.Quote(excerpt.Of(q.Get("view"))) + " is not public or raw"}
	}
	reads := e
	if v.Public {
		reads = e.Public()
	}
	v.Period, err = e.PeriodOf(l, k, q.Get("period"))
	if err != nil {
		return lbBoardView{}, err
	}
	if offset := q.Get("offset"); offset != "" {
		if v.Offset, err = strconv.Atoi(offset); err != nil || v.Offset < 0 {
			return lbBoardView{}, &league.Error{Code: league.Invalid, Field: "offset", Message: strconv.Quote(excerpt.Of(offset)) + " is not a rank offset (a whole number from 0)"}
		}
	}
	cur := l.Calendar.At(k, e.Now())
	v.Current, v.Ends = v.Period == cur, k != leaderboard.AllTime
	if k.Rolling() {
		v.From = l.WindowStart(v.Period)
	}
	if v.Ends {
		v.Prev = l.Calendar.Previous(v.Period).ID()
		if !v.Current {
			v.Next = l.Calendar.Next(v.Period).ID()
		}
		p := cur
		for range lbPeriods {
			v.Periods = append(v.Periods, lbPeriodOption{ID: p.ID(), Label: periodLabel(l, p, cur), Selected: p == v.Period})
			p = l.Calendar.Previous(p)
		}
		if !slices.ContainsFunc(v.Periods, func(o lbPeriodOption) bool { return o.Selected }) {
			// an older period than the list holds: listed too, chosen
			v.Periods = append(v.Periods, lbPeriodOption{ID: v.Period.ID(), Label: periodLabel(l, v.Period, cur), Selected: true})
		}
	}
	period := v.Period.ID()
	switch {
	case v.Around != "":
		v.Board, err = reads.Around(r.Context(), id, k, period, v.Around, lbAround)
	case l.Shards > 1 && v.Offset+lbPageSize > l.MaxDepth:
		// every shard would read that many entries: refused by the engine
		// (max_page_depth), said here rather than as an error
		v.TooDeep = true
	default:
		v.Board, err = reads.Top(r.Context(), id, k, period, v.Offset, lbPageSize)
	}
	if err != nil {
		return lbBoardView{}, err
	}
	if v.TooDeep {
		v.Board.Period = v.Period
	}
	if n := len(v.Board.Entries); n > 0 {
		v.First, v.Last = v.Board.Entries[0].Rank, v.Board.Entries[n-1].Rank
	}
	if v.Around == "" && !v.TooDeep {
		if v.Offset > 0 {
			v.PrevOffset = max(v.Offset-lbPageSize, 0)
		}
		if v.Offset+lbPageSize < v.Board.Size {
			next := v.Offset + lbPageSize
			if l.Shards > 1 && next+lbPageSize > l.MaxDepth {
				v.DeepLimit = true
			} else {
				v.NextOffset = next
			}
		}
	}
	if v.TooDeep {
		v.PrevOffset = max(l.MaxDepth-lbPageSize, 0)
	}
	if l.Queue != nil && !v.Board.Archived {
		if v.Behind, err = e.Lag(r.Context(), id); err != nil {
			return lbBoardView{}, err
		}
	}
	if v.Ends && !v.Board.Archived && v.Board.Size == 0 && v.Retention > 0 && !e.Now().Before(v.Period.End.Add(v.Retention)) {
		v.Expired = true
	}
	return v, nil
}

// periodLabel names a period in the period list: "current", "previous",
// or when it starts.
func periodLabel(l *leaderboard.Leaderboard, p, cur leaderboard.Period) string {
	switch {
	case p == cur:
		return "current (" + periodDate(l, p) + ")"
	case p == l.Calendar.Previous(cur):
		return "previous (" + periodDate(l, p) + ")"
	}
	return periodDate(l, p)
}

// periodDate is when a period starts as the leaderboard's calendar says
// it (its zone: a day is a date there): the hour of an hour's board (or a
// rolling window of hours: its last hour), the week's first day, the month,
// else the date.
func periodDate(l *leaderboard.Leaderboard, p leaderboard.Period) string {
	loc := l.Calendar.Loc
	if loc == nil {
		loc = time.UTC
	}
	start := p.Start.In(loc)
	switch {
	case p.Kind == leaderboard.Hour, p.Kind.Rolling() && strings.HasSuffix(string(p.Kind), "h"):
		return start.Format("2006-01-02 15:04 MST")
	case p.Kind == leaderboard.Month:
		return start.Format("January 2006")
	case p.Kind == leaderboard.Week:
		return "week of " + start.Format("2006-01-02")
	}
	return start.Format("2006-01-02")
}

// pagesView is what the board page's pager is given: the page, and the
// pager's name (there is one above the ranking and one below).
type pagesView struct {
	V     lbBoardView
	Label string
}

func pagesOf(v lbBoardView, label string) pagesView { return pagesView{V: v, Label: label} }
