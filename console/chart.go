package console

import (
	"fmt"
	"math"
	"strings"
)

// Charts are inline SVG drawn on the server (no script, nothing fetched):
// the geometry is computed here, the markup is templates/charts.html. Each
// is role="img" named by its <title> and described by its <desc>, which
// says the figures in words; the page shows the same figures in a table
// beside it, for a screen reader, a copy and paste, or colours that are
// hard to tell apart. Sizes are in the viewBox's units: the SVG scales to
// its box (console.css).

// chartW is every chart's width in viewBox units.
const chartW = 640.0

// chart is what every chart has.
type chart struct {
	ID          string // unique on the page: the ids of its title and desc derive from it
	Title, Desc string
	W, H        float64 // the viewBox
}

// palette is how many tier colours console.css defines (.c0 to .c7); a
// ladder taller than that reuses them, and the labels tell tiers apart.
const palette = 8

// round1 keeps one decimal: shorter markup, no visible difference.
func round1(x float64) float64 { return math.Round(x*10) / 10 }

// barChart has one horizontal bar per row: players per tier.
type barChart struct {
	chart
	LabelW float64 // where bars start
	Bars   []bar
}

type bar struct {
	Label  string
	Value  int64
	Y, W   float64 // the bar's top and length
	Color  int     // palette index
	TextY  float64 // baseline of its label and value
	ValueX float64 // where its value is written: past its end
}

const (
	barH, barGap = 24.0, 10.0
	barLabelW    = 130.0 // room for a tier's name
	barValueW    = 120.0 // room for "1,234,567" after the longest bar
)

// newBarChart draws values (one per label, in order) as bars from a
// common zero; the longest fills the width.
func newBarChart(id, title, unit string, labels []string, values []int64) barChart {
	c := barChart{chart: chart{ID: id, Title: title, W: chartW, H: float64(len(labels))*(barH+barGap) + barGap},
		LabelW: barLabelW}
	longest := int64(0)
	for _, v := range values {
		longest = max(longest, v)
	}
	room := chartW - barLabelW - barValueW
	words := make([]string, len(labels))
	for i, label := range labels {
		y := barGap + float64(i)*(barH+barGap)
		w := 0.0
		if longest > 0 {
			w = room * float64(values[i]) / float64(longest)
		}
		c.Bars = append(c.Bars, bar{Label: label, Value: values[i], Y: round1(y), W: round1(w), Color: i % palette,
			TextY: round1(y + barH*0.7), ValueX: round1(barLabelW + w + 6)})
		words[i] = fmt.Sprintf("%s: %s %s", label, thousands(values[i]), unit)
	}
	c.Desc = strings.Join(words, "; ") + "."
	if len(labels) == 0 {
		c.Desc = "No data."
	}
	return c
}

// columnChart has a stacked column per period: the players of each tier.
type columnChart struct {
	chart
	PlotTop, PlotBottom float64
	Columns             []column
	Legend              []legendItem
	Ticks               []tick
}

type column struct {
	Label      string // under the column
	X, W       float64
	LabelX     float64 // its centre
	Segments   []segment
	Total      int64
	TotalY     float64
	ShowsTotal bool
}

type segment struct {
	Name  string
	Value int64
	Y, H  float64
	Color int
}

type legendItem struct {
	Name    string
	X, Y    float64
	TextX   float64
	TextY   float64
	Color   int
	Present bool
}

// tick is a horizontal grid line with its value.
type tick struct {
	Value int64
	Y     float64
}

const (
	colLegendH = 34.0 // a row of the legend
	colAxisW   = 56.0 // room for the y axis's values
	colLabelH  = 26.0 // room for the labels under the columns
	colTopPad  = 22.0 // room for a total above the tallest column
	colPlotH   = 200.0
)

// newColumnChart draws, for each column (label), the stack of its values
// by series (names, lowest tier at the bottom); values[col][series].
func newColumnChart(id, title string, labels, names []string, values [][]int64) columnChart {
	legendRows := (len(names) + 3) / 4
	top := float64(legendRows)*colLegendH + colTopPad
	c := columnChart{chart: chart{ID: id, Title: title, W: chartW, H: top + colPlotH + colLabelH},
		PlotTop: top, PlotBottom: top + colPlotH}
	for i, n := range names {
		x := float64(i%4) * (chartW / 4)
		y := float64(i/4)*colLegendH + 6
		c.Legend = append(c.Legend, legendItem{Name: n, X: x, Y: y, TextX: x + 22, TextY: y + 13, Color: i % palette})
	}
	tallest := int64(0)
	for _, vs := range values {
		var sum int64
		for _, v := range vs {
			sum += v
		}
		tallest = max(tallest, sum)
	}
	scale := niceMax(tallest)
	for _, f := range []float64{0, 0.5, 1} {
		v := int64(f * float64(scale))
		c.Ticks = append(c.Ticks, tick{Value: v, Y: round1(c.PlotBottom - colPlotH*float64(v)/float64(scale))})
	}
	n := max(len(labels), 1)
	slot := (chartW - colAxisW) / float64(n)
	w := min(slot*0.6, 48)
	var words []string
	for i, label := range labels {
		x := colAxisW + float64(i)*slot + (slot-w)/2
		col := column{Label: label, X: round1(x), W: round1(w), LabelX: round1(x + w/2)}
		y := c.PlotBottom
		var parts []string
		for s, v := range values[i] {
			h := colPlotH * float64(v) / float64(scale)
			y -= h
			col.Total += v
			if v > 0 {
				col.Segments = append(col.Segments, segment{Name: names[s], Value: v, Y: round1(y), H: round1(h), Color: s % palette})
			}
			parts = append(parts, fmt.Sprintf("%s %s", names[s], thousands(v)))
		}
		col.TotalY = round1(y - 5)
		// A total above every column crowds a narrow chart: only when
		// the columns are wide enough for "12,345".
		col.ShowsTotal = slot >= 60
		c.Columns = append(c.Columns, col)
		words = append(words, fmt.Sprintf("%s: %s players (%s)", label, thousands(col.Total), strings.Join(parts, ", ")))
	}
	c.Desc = strings.Join(words, "; ") + "."
	if len(labels) == 0 {
		c.Desc = "No data."
	}
	return c
}

// niceMax is the top of an axis for values up to v: 1, 2 or 5 times a
// power of ten, at least v (and at least 1, so nothing divides by 0).
func niceMax(v int64) int64 {
	if v <= 1 {
		return 1
	}
	for p := int64(1); ; p *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if m*p >= v {
				return m * p
			}
		}
	}
}

// stepChart shows a value that takes one of a few levels over periods: a
// player's tier. Levels are drawn bottom up.
type stepChart struct {
	chart
	LabelW  float64
	Levels  []level
	Points  []point
	Line    string // a polyline's points
	XLabels []level
}

type level struct {
	Name string
	X, Y float64
}

type point struct {
	X, Y  float64
	Label string // what a pointer shows: the period and the tier
}

const (
	stepRowH   = 34.0
	stepLabelW = 130.0
	stepXAxisH = 26.0
)

// newStepChart draws, for each period (label, oldest first), the level
// index (into levels, lowest first) it was at; -1 leaves a gap.
func newStepChart(id, title string, levels, labels []string, at []int) stepChart {
	c := stepChart{chart: chart{ID: id, Title: title, W: chartW, H: float64(len(levels))*stepRowH + stepXAxisH + 10},
		LabelW: stepLabelW}
	yOf := func(i int) float64 { return round1(float64(len(levels)-1-i)*stepRowH + stepRowH/2 + 6) }
	for i, name := range levels {
		c.Levels = append(c.Levels, level{Name: name, X: 0, Y: yOf(i)})
	}
	n := max(len(labels), 1)
	slot := (chartW - stepLabelW - 10) / float64(n)
	var pts, words []string
	for i, label := range labels {
		x := round1(stepLabelW + float64(i)*slot + slot/2)
		c.XLabels = append(c.XLabels, level{Name: label, X: x, Y: c.H - 8})
		if at[i] < 0 || at[i] >= len(levels) {
			continue
		}
		y := yOf(at[i])
		c.Points = append(c.Points, point{X: x, Y: y, Label: label + ": " + levels[at[i]]})
		pts = append(pts, fmt.Sprintf("%g,%g", x, y))
		words = append(words, label+": "+levels[at[i]])
	}
	c.Line = strings.Join(pts, " ")
	c.Desc = strings.Join(words, "; ") + "."
	if len(words) == 0 {
		c.Desc = "No data."
	}
	return c
}
