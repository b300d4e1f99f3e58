package http

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mcpdir/mcpdir"
)

// The insight endpoint's defaults and bounds.
const (
	defaultInsightDays  = 7
	defaultInsightLimit = 100
	maxInsightLimit     = 1000
)

// insightsResponse is GET /api/admin/v1/insights's answer.
type insightsResponse struct {
	Days  int       `json:"days"`
	Since time.Time `json:"since"`
	mcpdir.Insights
}

// insights serves GET /api/admin/v1/insights?days=N&limit=N: the insight
// of the last days (1 to retention, default 7) as JSON, or as CSV with
// ?format=csv or Accept: text/csv (insightsCSV).
func insights(store mcpdir.InsightStore, retention int, logger *slog.Logger) func(w http.ResponseWriter, r *http.Request) {
	retention = cmp.Or(retention, mcpdir.InsightDays)
	return func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		days, err := strconv.Atoi(cmp.Or(q.Get("days"), strconv.Itoa(min(defaultInsightDays, retention))))
		if err != nil || days < 1 || days > retention {
			writeError(w, r, logger, mcpdir.Errorf(mcpdir.ECodeInvalidRequest, "days is a whole number from 1 to %d (the days the insight is kept)", retention))
			return
		}
		limit, err := strconv.Atoi(cmp.Or(q.Get("limit"), strconv.Itoa(defaultInsightLimit)))
		if err != nil || limit < 1 || limit > maxInsightLimit {
			writeError(w, r, logger, mcpdir.Errorf(mcpdir.ECodeInvalidRequest, "limit is a whole number from 1 to %d", maxInsightLimit))
			return
		}
		format := q.Get("format")
		if format == "" && strings.Contains(r.Header.Get("Accept"), "text/csv") {
			format = "csv"
		}
		if format != "" && format != "csv" && format != "json" {
			writeError(w, r, logger, mcpdir.Errorf(mcpdir.ECodeInvalidRequest, "format is json or csv"))
			return
		}
		// The current hour and the days*24-1 before it.
		since := time.Now().UTC().Truncate(time.Hour).Add(-time.Duration(days*24-1) * time.Hour)
		in, err := store.ReadInsights(r.Context(), since, limit)
		if err != nil {
			logger.WarnContext(r.Context(), "admin: read insights", "err", err)
			writeError(w, r, logger, mcpdir.Errorf(mcpdir.ECodeUnavailable, "the directory's store could not complete this: try again shortly"))
			return
		}
		if format == "csv" {
			body := insightsCSV(in)
			h := w.Header()
			h.Set("Content-Type", "text/csv; charset=utf-8")
			h.Set("Content-Disposition", `attachment; filename="mcpdir-insights-`+strconv.Itoa(days)+`d.csv"`)
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("Cache-Control", "no-store")
			h.Set("Content-Length", strconv.Itoa(len(body)))
			w.WriteHeader(http.StatusOK)
			w.Write(body)
			return
		}
		writeJSON(w, http.StatusOK, insightsResponse{Days: days, Since: since, Insights: in})
	}
}

// insightOf is cfg's recorder, or one that counts nothing.
func insightOf(cfg Config) mcpdir.InsightRecorder {
	if cfg.Insight == nil {
		return mcpdir.NoInsight
	}
	return cfg.Insight
}

// insightColumns are the CSV's: one table, a row per item of every list,
// named in the first column; a row leaves the columns of other lists
// empty.
var insightColumns = []string{"list", "hour", "door", "query", "key", "searches", "empty", "limited", "refused", "count", "requests", "last_seen"}

// insightsCSV is the insight as one CSV table (insightColumns): the hourly
// buckets (list "searches": hour, door, searches, empty, limited,
// refused), then "zero_result_queries" and "top_queries" (query, count,
// last_seen), then "keys" (key, requests, limited). A text that a
// spreadsheet would take for a formula (=, +, -, @) starts with a quote.
func insightsCSV(in mcpdir.Insights) []byte {
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	cw.Write(insightColumns)
	n := strconv.FormatInt
	at := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format(time.RFC3339)
	}
	row := func(fields map[string]string) {
		rec := make([]string, len(insightColumns))
		for i, c := range insightColumns {
			rec[i] = inert(fields[c])
		}
		cw.Write(rec)
	}
	for _, b := range in.Searches {
		row(map[string]string{"list": "searches", "hour": at(b.Hour), "door": b.Door, "searches": n(b.Searches, 10),
			"empty": n(b.Empty, 10), "limited": n(b.Limited, 10), "refused": n(b.Refused, 10)})
	}
	for _, l := range []struct {
		name string
		qs   []mcpdir.QueryStat
	}{{"zero_result_queries", in.ZeroResultQueries}, {"top_queries", in.TopQueries}} {
		for _, q := range l.qs {
			row(map[string]string{"list": l.name, "query": q.Query, "count": n(q.Count, 10), "last_seen": at(q.LastSeen)})
		}
	}
	for _, k := range in.Keys {
		row(map[string]string{"list": "keys", "key": k.Key, "requests": n(k.Requests, 10), "limited": n(k.Limited, 10)})
	}
	cw.Flush()
	return buf.Bytes()
}

// inert keeps a cell from being read as a formula by a spreadsheet.
func inert(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
