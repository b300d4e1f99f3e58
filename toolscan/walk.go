package toolscan

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpdir/mcpdir"
)

// A piece is one text of a tool's definition a model reads: where
// (field, a JSON path such as "input_schema.$defs.item.description"), the
// text as the rules read it, and as written (what warnings quote; the same
// length). name marks a key read as words (a parameter's name: its "_",
// "-" and "." as spaces, in place).
type piece struct {
	field, text, shown string
	name               bool
}

// Bounds on what one scan reads: enough for any definition the directory
// keeps (a description is at most 16 KiB, a schema 64 KiB), and a bound
// on the cost of a server listing hundreds of the largest.
const (
	maxToolText   = 256 << 10 // bytes of text read of one tool's definition
	maxServerText = 2 << 20   // bytes of text read of one server's tools and instructions
)

// pieces are every text of a tool's definition: its name, title and
// description, then every string anywhere in its input schema, output
// schema and annotations — any key at any depth, every element of every
// array, the keys that are names (properties, $defs, x-… keys) — in a
// fixed order, at most budget bytes (cut reports that it stopped there).
func pieces(t mcpdir.Tool, budget int) (out []piece, read int, cut bool) {
	add := func(p piece) bool {
		if p.text == "" {
			return true
		}
		if read+len(p.text) > budget {
			cut = true
			return false
		}
		read += len(p.text)
		out = append(out, p)
		return true
	}
	_ = add(piece{field: "name", text: t.Name, shown: t.Name}) &&
		add(piece{field: "title", text: t.Title, shown: t.Title}) &&
		add(piece{field: "description", text: t.Description, shown: t.Description})
	for _, doc := range []struct {
		path string
		raw  json.RawMessage
	}{{"input_schema", t.InputSchema}, {"output_schema", t.OutputSchema}, {"annotations", t.Annotations}} {
		if cut || len(doc.raw) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(doc.raw))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			continue
		}
		walkJSON(doc.path, "", v, add)
	}
	return out, read, cut
}

// schemaKeywords are keys that are JSON Schema's own words, not a text
// of the server's: not read as names.
var schemaKeywords = map[string]bool{
	"type": true, "description": true, "title": true, "properties": true, "items": true, "required": true,
	"enum": true, "const": true, "default": true, "examples": true, "format": true, "pattern": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "minLength": true,
	"maxLength": true, "minItems": true, "maxItems": true, "uniqueItems": true, "additionalProperties": true,
	"anyOf": true, "oneOf": true, "allOf": true, "not": true, "$ref": true, "$schema": true, "$id": true,
	"$defs": true, "definitions": true, "$comment": true, "patternProperties": true, "propertyNames": true,
	"dependentSchemas": true, "dependentRequired": true, "if": true, "then": true, "else": true,
	"prefixItems": true, "contains": true, "minProperties": true, "maxProperties": true, "multipleOf": true,
	"readOnly": true, "writeOnly": true, "deprecated": true, "nullable": true, "contentMediaType": true,
	"contentEncoding": true, "$anchor": true, "$dynamicRef": true, "$dynamicAnchor": true, "unevaluatedProperties": true,
	"unevaluatedItems": true, "additionalItems": true, "minContains": true, "maxContains": true,
	"readOnlyHint": true, "destructiveHint": true, "idempotentHint": true, "openWorldHint": true,
}

// nameWords is a key read as words: "content_from_reading_ssh_id_rsa" as
// "content from reading ssh id rsa", the same length.
var nameWords = strings.NewReplacer("_", " ", "-", " ", ".", " ")

// walkJSON calls add with every string in v (at path; parent is the key
// v is under), keys that are names included, in sorted key order; it
// stops when add returns false.
func walkJSON(path, parent string, v any, add func(piece) bool) bool {
	switch v := v.(type) {
	case string:
		return add(piece{field: path, text: v, shown: v})
	case []any:
		for i, e := range v {
			if !walkJSON(path+"."+strconv.Itoa(i), parent, e, add) {
				return false
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		// Under "properties", "$defs" and the like every key is a name;
		// elsewhere a key that is not a keyword is one too (x-… keys).
		named := parent == "properties" || parent == "$defs" || parent == "definitions" ||
			parent == "patternProperties" || parent == "dependentSchemas" || parent == "default" ||
			parent == "examples" || parent == "const" || parent == "enum"
		for _, k := range keys {
			sub := path + "." + k
			if named || !schemaKeywords[k] {
				// A key is a field of its own, "…/x-hint#key" when its value is
				// text too; a parameter's name is its path.
				field := sub
				switch v[k].(type) {
				case map[string]any, []any:
				default:
					field += "#key"
				}
				if !add(piece{field: field, text: nameWords.Replace(k), shown: k, name: true}) {
					return false
				}
			}
			child := k
			if named {
				child = "" // a property called "properties" is a name, not the keyword
			}
			if !walkJSON(sub, child, v[k], add) {
				return false
			}
		}
	}
	return true
}
