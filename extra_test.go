package mcpdir_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpdir/mcpdir"
)

// Extra round-trips the object an import gave, in the same bytes a map
// of it was written in before (sorted keys, compact), so that stored
// documents hash the same and nothing is lost.
func TestExtraRoundTrip(t *testing.T) {
	m := map[string]json.RawMessage{"stars": json.RawMessage(" 7 "), "custom": json.RawMessage(`{"k": [1, 2]}`), "a": nil}
	x := mcpdir.NewExtra(m)
	if want := `{"a":null,"custom":{"k":[1,2]},"stars":7}`; string(x) != want {
		t.Fatalf("NewExtra = %s, want %s", x, want)
	}
	asMap, _ := json.Marshal(map[string]json.RawMessage{"a": json.RawMessage("null"), "custom": m["custom"], "stars": m["stars"]})
	if string(x) != string(asMap) {
		t.Errorf("Extra %s, a map of it %s: the stored bytes would differ", x, asMap)
	}
	e := mcpdir.Entry{Name: "n", Extra: x}
	doc, err := json.Marshal(&e)
	if err != nil {
		t.Fatal(err)
	}
	var back mcpdir.Entry
	if err := json.Unmarshal(doc, &back); err != nil {
		t.Fatal(err)
	}
	if string(back.Extra) != string(x) {
		t.Errorf("round trip: %s, want %s", back.Extra, x)
	}
	if v, ok := back.Extra.Get("stars"); !ok || string(v) != "7" {
		t.Errorf(`Get("stars") = %s, %v`, v, ok)
	}
	if _, ok := back.Extra.Get("nope"); ok {
		t.Error(`Get("nope") found something`)
	}
	if y := back.Extra.With("stars", json.RawMessage("8")); string(y) != `{"a":null,"custom":{"k":[1,2]},"stars":8}` || string(back.Extra) != string(x) {
		t.Errorf("With = %s (and the original became %s)", y, back.Extra)
	}
}

func TestExtraEmptyAndInvalid(t *testing.T) {
	if x := mcpdir.NewExtra(nil); x != nil {
		t.Errorf("NewExtra(nil) = %q", x)
	}
	doc, _ := json.Marshal(&mcpdir.Entry{Name: "n"})
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["extra"]; ok {
		t.Errorf("an entry without extra fields writes one: %s", doc)
	}
	for _, in := range []string{`{"extra":null}`, `{"extra":{}}`} {
		var e mcpdir.Entry
		if err := json.Unmarshal([]byte(in), &e); err != nil || e.Extra != nil {
			t.Errorf("%s: extra %q, err %v", in, e.Extra, err)
		}
	}
	for _, in := range []string{`{"extra":[1]}`, `{"extra":"x"}`, `{"extra":7}`} {
		var e mcpdir.Entry
		if err := json.Unmarshal([]byte(in), &e); err == nil {
			t.Errorf("%s: taken as extra %q", in, e.Extra)
		}
	}
}

// Get reads one field in place, whatever the others hold: strings with
// braces, commas, colons and escaped quotes, nested objects and lists,
// numbers and literals, escaped keys. It agrees with Map on every key.
func TestExtraGet(t *testing.T) {
	var e mcpdir.Entry
	doc := `{"extra":{"a":"x,}]:\"{","b":{"c":[1,{"d":"}"}],"e":null},"n":-1.5e3,"t":true,"\u006bey":"k","last":[]}}`
	if err := json.Unmarshal([]byte(doc), &e); err != nil {
		t.Fatal(err)
	}
	m := e.Extra.Map()
	for _, k := range []string{"a", "b", "n", "t", "key", "last"} {
		got, ok := e.Extra.Get(k)
		if !ok || string(got) != string(m[k]) {
			t.Errorf("Get(%q) = %s, %v; Map has %s", k, got, ok, m[k])
		}
	}
	for _, k := range []string{"c", "d", "x", ""} {
		if got, ok := e.Extra.Get(k); ok {
			t.Errorf("Get(%q) found %s", k, got)
		}
	}
}
