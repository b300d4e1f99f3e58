package web

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/wire"
)

// uptimeChart is a server's live checks of the last mcpdir.HistoryDays
// days as an SVG the page draws without a script: a bar a day (answered
// every time, sometimes, never) and the day's median latency as a line,
// with the summary as its text alternative.
type uptimeChart struct {
	Summary       string
	Width, Height int
	Bars          []uptimeBar
	Latency       string // the polyline's points; "" when nothing answered
	MaxMS         int64  // the latency the top of the chart stands for
}

type uptimeBar struct {
	X, Y, W, H int
	Class      string
	Label      string
}

const (
	chartDayWidth = 20
	chartHeight   = 64
)

// newUptimeChart draws h; nil when there is no history.
func newUptimeChart(h *wire.LiveHistory) *uptimeChart {
	if h == nil || len(h.Daily) == 0 {
		return nil
	}
	last, err := time.Parse(time.DateOnly, h.Daily[len(h.Daily)-1].Day)
	if err != nil {
		return nil
	}
	c := &uptimeChart{Summary: h.Summary, Width: mcpdir.HistoryDays * chartDayWidth, Height: chartHeight}
	for _, d := range h.Daily {
		c.MaxMS = max(c.MaxMS, d.MedianLatencyMS)
	}
	var points []string
	for _, d := range h.Daily {
		at, err := time.Parse(time.DateOnly, d.Day)
		if err != nil {
			continue
		}
		slot := mcpdir.HistoryDays - 1 - int(last.Sub(at).Hours()/24)
		if slot < 0 {
			continue
		}
		// The bar's height says what its colour does: how much of the
		// day the server answered (a day it never did, a stub).
		hgt := max(6, chartHeight*d.Answered/max(d.Checks, 1))
		bar := uptimeBar{X: slot*chartDayWidth + 2, W: chartDayWidth - 4, Y: chartHeight - hgt, H: hgt}
		switch {
		case d.Answered == d.Checks:
			bar.Class = "day-up"
		case d.Answered == 0:
			bar.Class = "day-down"
		default:
			bar.Class = "day-partial"
		}
		bar.Label = fmt.Sprintf("%s: %d of %d checks answered", d.Day, d.Answered, d.Checks)
		if d.MedianLatencyMS > 0 {
			bar.Label += fmt.Sprintf(", median %d ms", d.MedianLatencyMS)
			y := chartHeight - 4 - int(int64(chartHeight-8)*d.MedianLatencyMS/max(c.MaxMS, 1))
			points = append(points, fmt.Sprintf("%d,%d", slot*chartDayWidth+chartDayWidth/2, y))
		}
		c.Bars = append(c.Bars, bar)
	}
	if len(points) > 1 {
		c.Latency = strings.Join(points, " ")
	}
	return c
}
