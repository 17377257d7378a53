package season

import (
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/league-engine/league/tiers"
)

// WriteSVG draws each tier's population over the periods as lines, one
// colour per tier, labelled at the right, for a designer's eyes: a
// standalone SVG file, nothing fetched.
func WriteSVG(w io.Writer, title string, ld *tiers.Ladder, ps []Period) error {
	const width, height, left, right, top, bottom = 800.0, 420.0, 70.0, 130.0, 40.0, 40.0
	colours := []string{"#8c6239", "#7f8c8d", "#d4a017", "#2e86c1", "#8e44ad", "#c0392b", "#16a085", "#2c3e50"}
	most := 1
	for _, p := range ps {
		for _, n := range p.Population {
			most = max(most, n)
		}
	}
	x := func(i int) float64 {
		if len(ps) == 1 {
			return left
		}
		return left + float64(i)*(width-left-right)/float64(len(ps)-1)
	}
	y := func(n int) float64 { return top + (height-top-bottom)*(1-float64(n)/float64(most)) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" font-family="sans-serif" font-size="12">`+"\n",
		width, height, width, height)
	fmt.Fprintf(&b, "<title>%s</title>\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n", html.EscapeString(title))
	fmt.Fprintf(&b, "<text x=\"%.0f\" y=\"22\" font-size=\"15\">%s</text>\n", left, html.EscapeString(title))
	for k := 0; k <= 4; k++ { // the y axis: 0 to the most, in quarters
		n := most * k / 4
		fmt.Fprintf(&b, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", left, width-right, y(n), y(n))
		fmt.Fprintf(&b, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%d</text>\n", left-6, y(n)+4, n)
	}
	for i, p := range ps { // the x axis: period numbers, about ten of them
		if step := max(1, len(ps)/10); i%step == 0 || i == len(ps)-1 {
			fmt.Fprintf(&b, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%d</text>\n", x(i), height-bottom+18, p.N)
		}
	}
	fmt.Fprintf(&b, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">period</text>\n", (left+width-right)/2, height-6)
	for t := 0; t < ld.Len(); t++ {
		c := colours[t%len(colours)]
		var pts []string
		for i, p := range ps {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), y(p.Population[t])))
		}
		fmt.Fprintf(&b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>\n", c, strings.Join(pts, " "))
		last := ps[len(ps)-1].Population[t]
		fmt.Fprintf(&b, "<text x=\"%.0f\" y=\"%.1f\" fill=\"%s\">%s %d</text>\n", width-right+8, y(last)+4, c,
			html.EscapeString(ld.Tier(t).Name), last)
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
