// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package suite

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// Series is one named set of bars of a chart, a value per group.
type Series struct {
	Name   string
	Values []float64
}

// Chart is a grouped bar chart: for each group, one bar per series.
type Chart struct {
	// File is the file name the chart is written under.
	File  string
	Title string
	// Unit labels the value axis.
	Unit   string
	Groups []string
	Series []Series
	// Log draws the value axis on a log10 scale, for values that span orders of magnitude.
	Log bool
}

// charWidth is about the width of a character of the charts' 12px sans-serif text, in pixels.
const charWidth = 6.5

// palette colours the series, in order.
var palette = []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1"}

// SVG renders the chart as a self-contained SVG document.
func (c Chart) SVG() []byte {
	const (
		height              = 380
		left, right         = 70, 20
		top, bottom         = 50, 90
		plotH               = height - top - bottom
		barGap, groupMargin = 2.0, 0.2
	)
	// At least 140 pixels per group, so that the group labels fit.
	width := max(760, left+right+140*len(c.Groups))
	plotW := width - left - right
	lo, hi := c.bounds()
	scale := func(v float64) float64 {
		if c.Log {
			v = math.Max(v, lo)
			return plotH * (math.Log10(v) - math.Log10(lo)) / (math.Log10(hi) - math.Log10(lo))
		}
		return plotH * v / hi
	}

	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="24" font-size="16" font-weight="bold">%s</text>`+"\n", left, esc(c.Title))

	// Value axis with grid lines.
	for _, t := range c.ticks(lo, hi) {
		y := float64(top+plotH) - scale(t)
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", left, left+plotW, y, y)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, y+4, esc(short(t)))
	}
	fmt.Fprintf(&b, `<text transform="translate(16 %d) rotate(-90)" text-anchor="middle">%s</text>`+"\n", top+plotH/2, esc(c.axisLabel()))
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#333"/>`+"\n", left, left+plotW, top+plotH, top+plotH)

	// Bars.
	groupW := float64(plotW) / float64(max(1, len(c.Groups)))
	barW := groupW * (1 - 2*groupMargin) / float64(max(1, len(c.Series)))
	for g, group := range c.Groups {
		x0 := float64(left) + groupW*float64(g) + groupW*groupMargin
		for s, series := range c.Series {
			if g >= len(series.Values) {
				continue
			}
			v := series.Values[g]
			h := scale(v)
			if v <= 0 || math.IsNaN(v) {
				h = 0
			}
			x := x0 + barW*float64(s)
			y := float64(top+plotH) - h
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s, %s: %s %s</title></rect>`+"\n",
				x+barGap/2, y, math.Max(1, barW-barGap), h, palette[s%len(palette)], esc(group), esc(series.Name), esc(short(v)), esc(c.Unit))
			if h > 0 {
				fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="%d">%s</text>`+"\n", x+barW/2, y-3, labelSize(barW), esc(label(v)))
			}
		}
		// The group's label, under its bars, on up to three lines.
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">`, x0+groupW*(1-2*groupMargin)/2, top+plotH+18)
		for i, line := range wrap(group, int(groupW/charWidth), 3) {
			dy := 0
			if i > 0 {
				dy = 14
			}
			fmt.Fprintf(&b, `<tspan x="%.1f" dy="%d">%s</tspan>`, x0+groupW*(1-2*groupMargin)/2, dy, esc(line))
		}
		b.WriteString("</text>\n")
	}

	// Legend.
	x := float64(left)
	for s, series := range c.Series {
		y := height - 30
		fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="12" height="12" fill="%s"/>`+"\n", x, y, palette[s%len(palette)])
		fmt.Fprintf(&b, `<text x="%.1f" y="%d">%s</text>`+"\n", x+16, y+10, esc(series.Name))
		x += 16 + 7*float64(len(series.Name)) + 24
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// bounds returns the range of the value axis.
func (c Chart) bounds() (lo, hi float64) {
	lo, hi = math.Inf(1), 0
	for _, s := range c.Series {
		for _, v := range s.Values {
			if v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if hi == 0 {
		return 1, 10
	}
	if !c.Log {
		return 0, niceCeil(hi * 1.1)
	}
	return math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi*1.01)))
}

// ticks returns the values the value axis is labelled at.
func (c Chart) ticks(lo, hi float64) []float64 {
	var out []float64
	if c.Log {
		for v := lo; v <= hi*1.0001; v *= 10 {
			out = append(out, v)
		}
		return out
	}
	step := hi / 5
	for i := range 6 {
		out = append(out, step*float64(i))
	}
	return out
}

func (c Chart) axisLabel() string {
	if c.Log {
		return c.Unit + " (log scale)"
	}
	return c.Unit
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// wrap breaks s at spaces into lines of at most width characters (a longer word makes a longer line), at most
// lines of them: the last line takes the rest.
func wrap(s string, width, lines int) []string {
	var out []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case len(out) == lines-1 || len(line)+1+len(word) <= width:
			line += " " + word
		default:
			out = append(out, line)
			line = word
		}
	}
	return append(out, line)
}

// labelSize is the font size of the value printed above a bar barW wide.
func labelSize(barW float64) int {
	if barW < 40 {
		return 9
	}
	return 10
}

// label is the value printed above a bar: at most four characters for values under 10,000, so that the labels of
// neighbouring bars do not run into each other.
func label(v float64) string {
	switch {
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 1:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2g", v)
	}
}

// short formats a value with few digits.
func short(v float64) string {
	switch {
	case v == 0:
		return "0"
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.1f", v)
	case math.Abs(v) >= 0.1:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

func esc(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// WriteCharts writes every chart to dir.
func WriteCharts(dir string, charts []Chart) error {
	for _, c := range charts {
		if err := os.WriteFile(filepath.Join(dir, c.File), c.SVG(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
