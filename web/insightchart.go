package web

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpdir/mcpdir"
)

// insightDoors are the doors the charts draw, in the legend's order.
var insightDoors = []struct{ Door, Label string }{
	{mcpdir.DoorWeb, "Web pages"},
	{mcpdir.DoorREST, "REST API"},
	{mcpdir.DoorMCP, "MCP"},
	{mcpdir.DoorRegistry, "Registry API"},
	{mcpdir.DoorTools, "Tool search"},
}

// insightDays is how many days the admin page's charts cover.
const insightDays = 7

// searchChart is the searches of the last insightDays days by door, as an
// SVG of stacked bars a day that the page draws without a script, its
// summary as its text alternative and its numbers as a table besides.
type searchChart struct {
	Summary       string
	Width, Height int
	Max           int64 // the searches the top of the chart stands for
	Bars          []chartBar
	Labels        []chartLabel
	Legend        []legendItem
	Rows          []chartRow // the table: a row a day
	Doors         []string   // the table's door columns
}

type chartBar struct {
	X, Y, W, H int
	Class      string
	Label      string
}

type chartLabel struct {
	X, Y int
	Text string
}

type legendItem struct{ Class, Label string }

type chartRow struct {
	Day                            string
	ByDoor                         []int64
	Total, Empty, Limited, Refused int64
}

const (
	chartBarSlot   = 64 // a day's width
	chartBarsTop   = 8
	chartBarsH     = 140
	chartLabelsH   = 20
	chartBarMargin = 12
)

// newSearchChart sums hourly buckets into days (UTC), the last insightDays
// ending today.
func newSearchChart(buckets []mcpdir.InsightBucket, now time.Time) *searchChart {
	today := now.UTC().Truncate(24 * time.Hour)
	first := today.AddDate(0, 0, -(insightDays - 1))
	doorIndex := map[string]int{}
	c := &searchChart{Width: insightDays * chartBarSlot, Height: chartBarsTop + chartBarsH + chartLabelsH}
	for i, d := range insightDoors {
		doorIndex[d.Door] = i
		c.Doors = append(c.Doors, d.Label)
		c.Legend = append(c.Legend, legendItem{Class: "door-" + d.Door, Label: d.Label})
	}
	other := len(insightDoors) // a door this page does not know of
	c.Doors = append(c.Doors, "Other")
	for i := range insightDays {
		c.Rows = append(c.Rows, chartRow{Day: first.AddDate(0, 0, i).Format(time.DateOnly), ByDoor: make([]int64, len(c.Doors))})
	}
	var total, empty int64
	for _, b := range buckets {
		day := int(b.Hour.UTC().Sub(first).Hours()) / 24
		if b.Hour.Before(first) || day >= insightDays {
			continue
		}
		row := &c.Rows[day]
		i, ok := doorIndex[b.Door]
		if !ok {
			i = other
		}
		row.ByDoor[i] += b.Searches
		row.Total += b.Searches
		row.Empty += b.Empty
		row.Limited += b.Limited
		row.Refused += b.Refused
		total += b.Searches
		empty += b.Empty
	}
	for _, r := range c.Rows {
		c.Max = max(c.Max, r.Total)
	}
	if c.Max == 0 {
		c.Summary = fmt.Sprintf("no searches in the last %d days", insightDays)
	} else {
		busiest := c.Rows[0]
		for _, r := range c.Rows {
			if r.Total > busiest.Total {
				busiest = r
			}
		}
		c.Summary = fmt.Sprintf("%d searches in the last %d days, %d of them answered nothing; the busiest day was %s with %d",
			total, insightDays, empty, busiest.Day, busiest.Total)
	}
	for i, r := range c.Rows {
		x := i*chartBarSlot + chartBarMargin/2
		y := chartBarsTop + chartBarsH
		for j, n := range r.ByDoor {
			if n == 0 {
				continue
			}
			h := max(1, int(int64(chartBarsH)*n/max(c.Max, 1)))
			y -= h
			class, label := "door-other", "Other"
			if j < len(insightDoors) {
				class, label = "door-"+insightDoors[j].Door, insightDoors[j].Label
			}
			c.Bars = append(c.Bars, chartBar{X: x, Y: y, W: chartBarSlot - chartBarMargin, H: h, Class: class,
				Label: fmt.Sprintf("%s, %s: %d searches", r.Day, label, n)})
		}
		day, _ := time.Parse(time.DateOnly, r.Day)
		c.Labels = append(c.Labels, chartLabel{X: i*chartBarSlot + chartBarSlot/2, Y: c.Height - 5, Text: strings.TrimSpace(day.Format("Mon 2"))})
	}
	return c
}
