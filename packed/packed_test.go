package packed

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/starter"
)

// TestStarterRoundTrips: every entry of the starter directory unpacks
// equal to itself, and packs to less than it takes decoded.
func TestStarterRoundTrips(t *testing.T) {
	entries, err := starter.Entries()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		p := Pack(e)
		if got := p.Unpack(); !reflect.DeepEqual(got, e) {
			t.Fatalf("%s: unpacked\n%+v\nwant\n%+v", e.Name, got, e)
		}
		if p.ID() != e.ID || p.Name() != e.Name {
			t.Fatalf("%s: ID %q, Name %q", e.Name, p.ID(), p.Name())
		}
	}
}

// TestEveryFieldRoundTrips fills every field of entries at random (each
// left zero, nil, empty or set), so that a field added to mcpdir.Entry
// and not packed fails here.
func TestEveryFieldRoundTrips(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		var e mcpdir.Entry
		fill(r, reflect.ValueOf(&e).Elem(), 0)
		p := Pack(&e)
		if got := p.Unpack(); !reflect.DeepEqual(got, &e) {
			a, _ := json.Marshal(got)
			b, _ := json.Marshal(&e)
			t.Fatalf("entry %d: unpacked\n%s\nwant\n%s\n(%+v\n%+v)", i, a, b, got, &e)
		}
		// Into a struct holding another entry: overwritten whole.
		var into mcpdir.Entry
		fill(r, reflect.ValueOf(&into).Elem(), 0)
		if p.UnpackTo(&into); !reflect.DeepEqual(&into, &e) {
			t.Fatalf("entry %d: unpacked into another\n%+v\nwant\n%+v", i, into, e)
		}
		if p.Popularity() != e.Popularity {
			t.Fatalf("entry %d: Popularity %d, want %d", i, p.Popularity(), e.Popularity)
		}
	}
}

// TestTimes: a time that is not a plain UTC instant (a zone, a monotonic
// reading) comes back as it was.
func TestTimes(t *testing.T) {
	for _, at := range []time.Time{
		{}, time.Unix(0, 0).UTC(), time.Unix(-62135596800, 0).UTC(), time.Now(), time.Now().UTC(),
		time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("x", 3600)), time.Unix(1<<40, 999999999).UTC(),
	} {
		e := &mcpdir.Entry{ID: "a", CreatedAt: at, UpdatedAt: at}
		if got := Pack(e).Unpack(); got.CreatedAt != at || got.UpdatedAt != at {
			t.Errorf("%v: unpacked %v, %v", at, got.CreatedAt, got.UpdatedAt)
		}
	}
}

// What is packed as a mark (a package named as its entry, updated when
// created) comes back as it was.
func TestMarks(t *testing.T) {
	at := time.Unix(1764000000, 5).UTC()
	for _, e := range []*mcpdir.Entry{
		{ID: "a", Name: "x", Packages: []mcpdir.Package{{Identifier: "x"}, {Identifier: "y"}, {}}, CreatedAt: at, UpdatedAt: at},
		{ID: "a", Name: "", Packages: []mcpdir.Package{{Identifier: ""}}, UpdatedAt: at},
		{ID: "a", CreatedAt: at, UpdatedAt: at.Add(time.Second)},
		{ID: "a", Version: "1.0", Packages: []mcpdir.Package{{Version: "1.0"}, {Version: "2.0"}, {}}},
		{ID: "a", Packages: []mcpdir.Package{{Version: ""}}},
	} {
		if got := Pack(e).Unpack(); !reflect.DeepEqual(got, e) {
			t.Errorf("unpacked\n%+v\nwant\n%+v", got, e)
		}
	}
}

// A website that is its entry's package page is packed as a mark; others,
// near ones too, come back as they were.
func TestPages(t *testing.T) {
	for _, c := range []struct {
		name, website string
		mark          bool
	}{
		{"@scope/x-mcp", "https://www.npmjs.com/package/@scope/x-mcp", true},
		{"x-mcp", "https://pypi.org/project/x-mcp/", true},
		{"x-mcp", "https://pypi.org/project/x-mcp", false},
		{"x-mcp", "https://www.npmjs.com/package/x-mcp/", false},
		{"x-mcp", "https://www.npmjs.com/package/y-mcp", false},
		{"x", "https://www.npmjs.com/package/x-mcp", false},
		{"", "https://www.npmjs.com/package/", false},
		{"", "https://pypi.org/project//", false},
		{"x-mcp", "", false},
		{"x-mcp", "https://example.com/" + strings.Repeat("p", 200), false},
	} {
		e := &mcpdir.Entry{ID: "a", Name: c.name, WebsiteURL: c.website}
		p := Pack(e)
		if got := p.Unpack(); !reflect.DeepEqual(got, e) {
			t.Errorf("%q: unpacked\n%+v\nwant\n%+v", c.website, got, e)
		}
		// Packed beside the same entry without a website: a mark takes
		// no more, a website kept takes its bytes more.
		extra := len(p.b) - len(Pack(&mcpdir.Entry{ID: "a", Name: c.name}).b)
		if c.mark && extra != 0 || !c.mark && extra < len(c.website) {
			t.Errorf("%q of %q: %d bytes more than no website, want a mark %v", c.website, c.name, extra, c.mark)
		}
	}
}

func TestZero(t *testing.T) {
	if (Entry{}).Valid() || (Entry{}).Unpack() != nil {
		t.Fatal("the zero Entry holds an entry")
	}
	if p := Pack(&mcpdir.Entry{}); !p.Valid() || !reflect.DeepEqual(p.Unpack(), &mcpdir.Entry{}) {
		t.Fatal("an empty entry does not round-trip")
	}
}

var timeType = reflect.TypeFor[time.Time]()

// fill sets v at random: a zero, nil or empty value a fifth of the time.
func fill(r *rand.Rand, v reflect.Value, depth int) {
	if !v.CanSet() || r.IntN(5) == 0 {
		return
	}
	switch {
	case v.Type() == timeType:
		switch r.IntN(3) {
		case 0:
			v.Set(reflect.ValueOf(time.Unix(r.Int64N(1<<34), r.Int64N(1e9)).UTC()))
		case 1:
			v.Set(reflect.ValueOf(time.Unix(r.Int64N(1<<34), 0).In(time.FixedZone("z", 7200))))
		default:
			v.Set(reflect.ValueOf(time.Now()))
		}
		return
	}
	switch v.Kind() {
	case reflect.String:
		b := make([]byte, r.IntN(300))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		v.SetString(string(b))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(r.Int64() - r.Int64())
	case reflect.Slice:
		if depth > 3 {
			return
		}
		if v.Type().Elem().Kind() == reflect.Uint8 { // Extra, raw JSON
			v.SetBytes([]byte(`{"a":1}`))
			return
		}
		n := r.IntN(4)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fill(r, s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Pointer:
		if depth > 3 {
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(r, p.Elem(), depth+1)
		v.Set(p)
	case reflect.Struct:
		for i := range v.NumField() {
			fill(r, v.Field(i), depth+1)
		}
	case reflect.Map:
		if depth > 3 {
			return
		}
		m := reflect.MakeMap(v.Type())
		k := reflect.New(v.Type().Key()).Elem()
		fill(r, k, depth+1)
		e := reflect.New(v.Type().Elem()).Elem()
		fill(r, e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	}
}

func BenchmarkUnpack(b *testing.B) {
	entries, err := starter.Entries()
	if err != nil {
		b.Fatal(err)
	}
	ps := make([]Entry, len(entries))
	for i, e := range entries {
		ps[i] = Pack(e)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		ps[i%len(ps)].Unpack()
	}
}

// Plain is what a scan of tools has nothing in: no tools, live check or
// warnings, not even an empty list of warnings.
func TestPlain(t *testing.T) {
	for _, c := range []struct {
		e     mcpdir.Entry
		plain bool
	}{
		{mcpdir.Entry{ID: "a", Tools: []mcpdir.Tool{}, Extra: mcpdir.Extra(`{"x":1}`)}, true},
		{mcpdir.Entry{ID: "a", Aliases: []mcpdir.Alias{{ID: "b"}}}, true},
		{mcpdir.Entry{ID: "a", Tools: []mcpdir.Tool{{Name: "t"}}}, false},
		{mcpdir.Entry{ID: "a", Live: &mcpdir.LiveCheck{}}, false},
		{mcpdir.Entry{ID: "a", ToolWarnings: []mcpdir.ToolWarning{}}, false},
		{mcpdir.Entry{ID: "a", ToolWarnings: []mcpdir.ToolWarning{{Kind: "k"}}}, false},
	} {
		if got := Pack(&c.e).Plain(); got != c.plain {
			t.Errorf("%+v: Plain %v, want %v", c.e, got, c.plain)
		}
	}
	if (Entry{}).Plain() {
		t.Error("no entry is plain")
	}
}

// TestCommonExtras: extra members many entries share are packed as an
// index into one table, come back equal and each a slice of their own, and
// the table stops growing at its bound (a value past it is packed whole).
func TestCommonExtras(t *testing.T) {
	month := mcpdir.Extra(`{"last_release_month":"2026-08"}`)
	e := &mcpdir.Entry{ID: "a", Name: "x", Extra: month}
	p := Pack(e)
	if whole := len(Pack(&mcpdir.Entry{ID: "a", Name: "x", Extra: mcpdir.Extra(`{"k":"` + strings.Repeat("v", maxCommonExtraLen) + `"}`)}).b); len(p.b) > whole-maxCommonExtraLen {
		t.Errorf("packed in %d bytes, as if whole (%d)", len(p.b), whole)
	}
	a, b := p.Unpack(), p.Unpack()
	if !reflect.DeepEqual(a, e) {
		t.Fatalf("unpacked\n%+v\nwant\n%+v", a, e)
	}
	a.Extra[2] = 'X'
	if string(b.Extra) != string(month) || string(p.Unpack().Extra) != string(month) {
		t.Fatal("an unpacked extra shares its memory with another")
	}

	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range maxCommonExtras / 2 {
				e := &mcpdir.Entry{ID: "a", Extra: mcpdir.Extra(fmt.Sprintf(`{"n":%d}`, g*maxCommonExtras/2+i))}
				if got := Pack(e).Unpack(); !reflect.DeepEqual(got, e) {
					t.Errorf("unpacked\n%+v\nwant\n%+v", got, e)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := len(commonExtras.byText); n != maxCommonExtras {
		t.Errorf("%d common extras kept, want the bound %d", n, maxCommonExtras)
	}
	if got := Pack(e).Unpack(); !reflect.DeepEqual(got, e) {
		t.Errorf("a value kept before the bound: unpacked\n%+v", got)
	}
}

// TestUnpackReusing unpacks entry after entry into one struct and one
// Reused, as a walk does: each comes back equal, and an entry like the
// packages corpus's (its packages and extra members in the reused memory)
// allocates nothing.
func TestUnpackReusing(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var into mcpdir.Entry
	var reused Reused
	for i := range 3000 {
		var e mcpdir.Entry
		fill(r, reflect.ValueOf(&e).Elem(), 0)
		if Pack(&e).UnpackReusing(&into, &reused); !reflect.DeepEqual(&into, &e) {
			t.Fatalf("entry %d: unpacked reusing\n%+v\nwant\n%+v", i, into, e)
		}
	}
	e := &mcpdir.Entry{ID: "a", Name: "x-mcp", Brief: "Does x", WebsiteURL: "https://example.com/x", Version: "1.0.0",
		Packages: []mcpdir.Package{{RegistryType: "npm", Identifier: "x-mcp", Version: "1.0.0"}}, Tags: []string{},
		Extra: mcpdir.Extra(`{"last_release_month":"2026-08"}`)}
	p := Pack(e)
	if allocs := testing.AllocsPerRun(100, func() { p.UnpackReusing(&into, &reused) }); allocs != 0 {
		t.Errorf("%v allocations an unpacking, want none", allocs)
	}
	if !reflect.DeepEqual(&into, e) {
		t.Errorf("unpacked reusing\n%+v\nwant\n%+v", into, e)
	}
}
