package wire

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// Scores are written as encoding/json writes the rounded float.
func TestAppendScoreMatchesFloatFormatting(t *testing.T) {
	scores := []float64{0, 0.0004, 0.0005, 0.001, 0.01, 0.1, 0.5, 1, 1.5, 1.2345, 9.9995, 10, 12.3456, 100.001, 1e6 + 0.25, 4.5e12 + 0.125, 1e16, -0.4, -3.21, math.MaxFloat64}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		scores = append(scores, r.Float64()*30, float64(r.IntN(1<<20))/1000, r.Float64()*1e9)
	}
	for _, f := range scores {
		want := strconv.AppendFloat(nil, RoundScore(f), 'f', -1, 64)
		if got := appendScore(nil, f); string(got) != string(want) {
			t.Fatalf("score %v: %s, want %s", f, got, want)
		}
	}
}
