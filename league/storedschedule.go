package league

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// A league's schedule is fixed once it has data (stored.go), and what is
// fixed is its boundaries, not its text: the periods Redis holds must start
// at boundaries of the config's schedule. Versions before this check read a
// schedule without CRON_TZ in the host's zone, and recorded the text as
// written; the same text now means UTC. So a league such a version ran on a
// host outside UTC holds periods the same text no longer starts, and its
// text alone cannot tell: the periods Redis holds decide (checkBoundaries),
// and a schedule recorded without a zone is matched in the config's zone
// too (sameSchedule), so that adding the hosts' zone is the fix. Open then
// records the schedule with its zone (recorded), as it records every
// schedule now.

// recorded is the schedule as Open records it: with its zone always
// (CRON_TZ=UTC when the config names none), so that a record without one
// can only be an older version's.
func (s *Schedule) recorded() string {
	zone, fields := splitZone(s.Spec)
	if zone == "" {
		return "CRON_TZ=UTC " + fields
	}
	return s.Spec
}

// sameSchedule reports whether the schedule Redis recorded, was, has the
// config's boundaries, reading a zoneless one in the config's zone too.
func sameSchedule(was string, s *Schedule, from time.Time) bool {
	if w, err := ParseSchedule(was); err == nil && w.SameAs(s, from) {
		return true
	}
	wasZone, fields := splitZone(was)
	zone, _ := splitZone(s.Spec)
	if wasZone != "" || zone == "" {
		return false
	}
	w, err := ParseSchedule("CRON_TZ=" + zone + " " + fields)
	return err == nil && w.SameAs(s, from)
}

// recordedStarts returns the starts of the periods Redis holds for the
// league: the last settled, those waiting for settlement, those played.
func (e *Engine) recordedStarts(ctx context.Context, lv *live, settled any) ([]int64, error) {
	pipe := e.rdb.Pipeline()
	waiting := pipe.ZRange(ctx, lv.keys.periods(), 0, -1)
	played := pipe.ZRange(ctx, lv.keys.played(), 0, -1)
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, internal("periods", err)
	}
	var starts []int64
	for _, s := range append(append([]string{fmt.Sprint(settled)}, waiting.Val()...), played.Val()...) {
		if sec, err := strconv.ParseInt(s, 10, 64); err == nil && sec > 0 {
			starts = append(starts, sec)
		}
	}
	return starts, nil
}

// checkBoundaries refuses a schedule that does not start every period the
// league's data holds (in where: Redis, or Postgres for a restore): its
// periods would overlap those, and decide their players twice.
func (e *Engine) checkBoundaries(lv *live, starts []int64, where string) error {
	for _, sec := range starts {
		if lv.startsPeriod(sec) {
			continue
		}
		start := time.Unix(sec, 0).UTC()
		hint := "revert the schedule, or give the league with the new cycle a new id"
		if zone, fields := splitZone(lv.Schedule.Spec); zone == "" {
			hint = "if older versions ran the league on hosts outside UTC, they read a schedule without CRON_TZ " +
				"in the host's zone: add that zone (CRON_TZ=Area/City " + fields + "); otherwise " + hint
			if host := hostZone(); host != "" && startsAll(starts, "CRON_TZ="+host+" "+fields) {
				hint = fmt.Sprintf("%s's periods are those of the schedule in this host's zone, in which older versions "+
					"read a schedule without CRON_TZ: write \"CRON_TZ=%s %s\"", where, host, fields)
			}
		}
		return fmt.Errorf("league %q: %s holds a period starting %s, which is not a boundary of the schedule %q: "+
			"the league ran under another reading of its schedule, and periods of this one would overlap it; %s",
			lv.ID, where, start.Format(time.RFC3339), lv.Schedule.Spec, hint)
	}
	return nil
}

// startsAll reports whether spec parses and every start is a boundary of it.
func startsAll(starts []int64, spec string) bool {
	s, err := ParseSchedule(spec)
	if err != nil {
		return false
	}
	for _, sec := range starts {
		if _, err := s.Containing(time.Unix(sec, 0)); err != nil {
			return false
		}
	}
	return true
}

// hostZone names the host's zone ("" when unknown or UTC), for hints: TZ,
// else the zone file /etc/localtime links to.
func hostZone() string {
	zone := strings.TrimPrefix(os.Getenv("TZ"), ":")
	if zone == "" {
		zone, _ = os.Readlink("/etc/localtime")
	}
	if _, name, ok := strings.Cut(zone, "zoneinfo/"); ok {
		zone = name // a path to the zone file: its name is the rest
	} else if strings.HasPrefix(zone, "/") {
		return "" // a file outside the tz database: no name to give
	}
	if zone == "" || zone == "UTC" || zone == "Local" {
		return ""
	}
	return zone
}

// rerecordSchedule records the config's schedule, with its zone, in place
// of an older version's zoneless one (was), which the config matched
// (sameSchedule, checkBoundaries). Only if was is still there: a process
// that started at the same time with another zone may have recorded its
// own, which this config must then match like any recorded schedule.
func (e *Engine) rerecordSchedule(ctx context.Context, lv *live, was string) error {
	meta := lv.keys.meta()
	var refused error
	for attempt := 0; attempt < 8; attempt++ {
		err := e.rdb.Watch(ctx, func(tx *redis.Tx) error {
			cur, err := tx.HGet(ctx, meta, "schedule").Result()
			if err != nil {
				return err
			}
			if cur != was {
				refused = e.checkFixed(lv, []any{nil, nil, cur})
				return nil
			}
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.HSet(ctx, meta, "schedule", lv.Schedule.recorded())
				return nil
			})
			return err
		}, meta)
		if !errors.Is(err, redis.TxFailedErr) { // meta changed meanwhile: look again
			if err != nil {
				return internal("layout", err)
			}
			return refused
		}
	}
	return internal("layout", errors.New("the league's meta hash kept changing"))
}
