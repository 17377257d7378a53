package main

import "strings"

// column is a table column: its header, whether it is a number (right
// aligned) and its cell.
type column[T any] struct {
	head    string
	numeric bool
	cell    func(T) string
}

// table renders rows as a markdown table with padded columns, so it reads
// in a terminal and pastes into markdown alike.
func table[T any](cols []column[T], rows []T) string {
	cells := make([][]string, len(rows)+1)
	cells[0] = make([]string, len(cols))
	for j, c := range cols {
		cells[0][j] = c.head
	}
	for i, r := range rows {
		cells[i+1] = make([]string, len(cols))
		for j, c := range cols {
			cells[i+1][j] = strings.ReplaceAll(c.cell(r), "|", `\|`)
		}
	}
	width := make([]int, len(cols))
	for _, line := range cells {
		for j, s := range line {
			width[j] = max(width[j], len([]rune(s)), 3)
		}
	}
	var b strings.Builder
	line := func(parts []string) {
		b.WriteString("|")
		for j, s := range parts {
			pad := strings.Repeat(" ", width[j]-len([]rune(s)))
			if cols[j].numeric {
				b.WriteString(" " + pad + s + " |")
			} else {
				b.WriteString(" " + s + pad + " |")
			}
		}
		b.WriteString("\n")
	}
	line(cells[0])
	rule := make([]string, len(cols))
	for j := range cols {
		rule[j] = strings.Repeat("-", width[j])
		if cols[j].numeric {
			rule[j] = rule[j][1:] + ":"
		}
	}
	line(rule)
	for _, r := range cells[1:] {
		line(r)
	}
	return b.String()
}
