package league

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/league-engine/league/internal/excerpt"
)

// Cohorts (issue #25): matchmaking inside a tier. A league may name
// cohorts (activity levels, skill bands, regions, platforms: the game
// server decides which a join carries), and a join that names one is
// placed on its tier's boards of that cohort, which fill one after
// another as the tier's shared boards do: one HINCRBY per (tier, cohort)
// and period. A join naming none goes to the tier's shared boards. Zones,
// moves and rewards are the tier's, decided board by board; min_board_size
// merges a cohort's short last board with the cohort's board before it,
// and a cohort too thin for a board of its own falls back to the shared
// boards (tiers/thin.go, merge.go).
//
// Each (tier, cohort) has its own one-byte code beside the tier codes
// (tiers.lua gives "<tier>.<cohort>" a code as it gives a tier id one), so
// a record, a board key and the counters name the cohort's boards as they
// name a tier's: score writes, standings and board reads need nothing
// more than the code's tier (lv.index holds every code).

// MaxCohorts bounds a league's cohorts: tiers × (cohorts + 1) codes must
// fit the 255 a byte has (checkCohorts).
const MaxCohorts = 32

// cohortSep joins a tier id and a cohort in a cohort's code id and in a
// board id ("gold.core-3"); ids never hold it.
const cohortSep = "."

// checkCohorts refuses cohort names that are not ids, repeated, or too
// many for the tier codes.
func (l *League) checkCohorts() error {
	if len(l.Cohorts) > MaxCohorts {
		return fmt.Errorf("cohorts: %d cohorts, at most %d", len(l.Cohorts), MaxCohorts)
	}
	seen := make(map[string]bool, len(l.Cohorts))
	for i, c := range l.Cohorts {
		if !idPattern.MatchString(c) {
			return fmt.Errorf("cohorts[%d]: %q must be 1-32 characters of a-z, 0-9 and _, starting with a letter or digit", i, c)
		}
		if seen[c] {
			return fmt.Errorf("cohorts[%d]: %q is named twice", i, c)
		}
		seen[c] = true
	}
	// Codes are never reused (tiers.lua), so leave room for renames.
	if codes := l.Ladder.Len() * (len(l.Cohorts) + 1); codes > 200 {
		return fmt.Errorf("cohorts: %d tiers with %d cohorts need %d board codes, at most 200 (Redis records store one byte)",
			l.Ladder.Len(), len(l.Cohorts), codes)
	}
	return nil
}

// cohortIndex is the position of cohort c in the league's cohorts, 1-based
// (0: the shared boards, c ""), or an error naming the join's field.
func (l *League) cohortIndex(c string) (int, error) {
	if c == "" {
		return 0, nil
	}
	for i, name := range l.Cohorts {
		if name == c {
			return i + 1, nil
		}
	}
	if len(l.Cohorts) == 0 {
		return 0, fieldError("cohort", "league %q has no cohorts; leave cohort empty", l.ID)
	}
	return 0, fieldError("cohort", "%q is not one of league %q's cohorts (%s)", excerpt.Of(c), l.ID, strings.Join(l.Cohorts, ", "))
}

// cohortID is the id tiers.lua codes the boards of cohort c of tier id
// under: the tier id itself for the shared boards.
func cohortID(tier, c string) string {
	if c == "" {
		return tier
	}
	return tier + cohortSep + c
}

// codeIDs lists the ids of every board code of the league: the tiers in
// ladder order, then each tier's cohorts (tierCodes gives them codes).
func (l *League) codeIDs() []any {
	ids := make([]any, 0, l.Ladder.Len()*(len(l.Cohorts)+1))
	for i := range l.Ladder.Len() {
		ids = append(ids, l.Ladder.Tier(i).ID)
	}
	for i := range l.Ladder.Len() {
		for _, c := range l.Cohorts {
			ids = append(ids, cohortID(l.Ladder.Tier(i).ID, c))
		}
	}
	return ids
}

// setCodes takes the codes tiers.lua gave codeIDs, in that order.
func (lv *live) setCodes(codes []int) {
	n, k := lv.Ladder.Len(), len(lv.Cohorts)
	lv.code = codes[:n]
	lv.cohortCode = make([][]int, n)
	lv.cohortOf = make(map[int]int, len(codes))
	for i := range n {
		lv.index[codes[i]] = i
		lv.cohortCode[i] = make([]int, k+1)
		lv.cohortCode[i][0] = codes[i]
		for c := range k {
			code := codes[n+i*k+c]
			lv.index[code] = i
			lv.cohortCode[i][c+1] = code
			lv.cohortOf[code] = c + 1
		}
	}
	lv.codes = codeBytes(codes)
	lv.setSeqs()
	lv.codeTiers, lv.cohortMaps = "", nil
	if k > 0 {
		// join.lua's ARGV[26] and ARGV[27]: every code's tier code, and per
		// cohort the code of each tier code's boards of it.
		top := 0
		for _, c := range codes {
			top = max(top, c)
		}
		base := bytes.Repeat([]byte{noTier}, top+1)
		for code, i := range lv.index {
			base[code] = byte(lv.code[i])
		}
		lv.codeTiers = string(base)
		lv.cohortMaps = make([]string, k+1)
		for c := range k + 1 {
			b := make([]byte, top+1)
			for i := range n {
				b[lv.code[i]] = byte(lv.cohortCode[i][c])
			}
			lv.cohortMaps[c] = string(b)
		}
	}
}

func codeBytes(codes []int) string {
	b := make([]byte, len(codes))
	for i, c := range codes {
		b[i] = byte(c)
	}
	return string(b)
}

// cohortName is the cohort whose boards code names ("" for a tier's shared
// boards).
func (lv *live) cohortName(code int) string {
	if c := lv.cohortOf[code]; c > 0 {
		return lv.Cohorts[c-1]
	}
	return ""
}

// boardID is board n of the boards code names (a tier's or a cohort's).
func (lv *live) boardID(code, n int) BoardID {
	return BoardID{Tier: lv.Ladder.Tier(lv.index[code]).ID, Cohort: lv.cohortName(code), N: n}
}

// boardCode is the code of the boards id names in this config, or an
// error naming the field when its tier or cohort is unknown.
func (lv *live) boardCode(id BoardID) (int, error) {
	idx, ok := lv.Ladder.Index(id.Tier)
	if !ok {
		return 0, Errorf(NotFound, "league %q has no tier %q", lv.ID, id.Tier)
	}
	c, err := lv.cohortIndex(id.Cohort)
	if err != nil {
		return 0, Errorf(NotFound, "league %q has no cohort %q", lv.ID, id.Cohort)
	}
	return lv.cohortCode[idx][c], nil
}

// tierCodesOf lists the codes of tier idx's boards in tie order: its
// shared boards', then its cohorts' by name (tiers/thin.go). Settlement
// reads them in this order.
func (lv *live) tierCodesOf(idx int) []int {
	if lv.seqCodes == nil {
		return []int{lv.code[idx]}
	}
	return lv.seqCodes[idx]
}

// seqOf is the position of code's boards among their tier's in tie order
// (0: the shared boards).
func (lv *live) seqOf(code int) int { return lv.seq[code] }

// seqsOf is group_at's argument for code's tier: its codes in tie order
// ("" without cohorts).
func (lv *live) seqsOf(code int) string {
	if lv.seqCodes == nil {
		return ""
	}
	return codeBytes(lv.seqCodes[lv.index[code]])
}

// setSeqs derives the tie order of each tier's boards (shared first, then
// cohorts by name, which every process agrees on whatever its config's
// order) and group_at's argument: each tier's codes in that order, a 255
// byte after each.
func (lv *live) setSeqs() {
	lv.seqCodes, lv.seq, lv.groups = nil, map[int]int{}, ""
	if len(lv.Cohorts) == 0 {
		return
	}
	byName := make([]int, len(lv.Cohorts)) // config positions, by name
	for i := range byName {
		byName[i] = i
	}
	slices.SortFunc(byName, func(a, b int) int { return strings.Compare(lv.Cohorts[a], lv.Cohorts[b]) })
	lv.seqCodes = make([][]int, lv.Ladder.Len())
	var g []byte
	for i := range lv.seqCodes {
		codes := []int{lv.code[i]}
		for _, c := range byName {
			codes = append(codes, lv.cohortCode[i][c+1])
		}
		for k, code := range codes {
			lv.seq[code] = k
			g = append(g, byte(code))
		}
		lv.seqCodes[i] = codes
		g = append(g, noTier)
	}
	lv.groups = string(g)
}
