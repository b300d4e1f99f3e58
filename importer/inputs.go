package importer

import (
	"cmp"
	"encoding/json"
	"fmt"

	"github.com/mcpdir/mcpdir"
)

// Bounds on a package's or a remote's inputs.
const (
	maxInputs      = 64 // environment variables, arguments or headers of one package or remote
	maxVariables   = 16 // of one input
	maxChoices     = 64
	maxInputDesc   = mcpdir.MaxBriefLen
	maxInputValue  = mcpdir.MaxURLLen
	maxInputName   = mcpdir.MaxNameLen
	maxInputChoice = mcpdir.MaxShortFieldLen
)

// rawInput is an input as records write it: server.json's camelCase, the
// legacy registry seed's and the directory's own snake_case.
type rawInput struct {
	Name         string              `json:"name"`
	Type         string              `json:"type"`
	Value        any                 `json:"value"`
	Default      any                 `json:"default"`
	IsRequired   bool                `json:"is_required"`
	IsRequiredJS bool                `json:"isRequired"`
	IsSecret     bool                `json:"is_secret"`
	IsSecretJS   bool                `json:"isSecret"`
	IsRepeated   bool                `json:"is_repeated"`
	IsRepeatedJS bool                `json:"isRepeated"`
	ValueHint    string              `json:"value_hint"`
	ValueHintJS  string              `json:"valueHint"`
	Description  string              `json:"description"`
	Choices      []any               `json:"choices"`
	Format       string              `json:"format"`
	Placeholder  string              `json:"placeholder"`
	Variables    map[string]rawInput `json:"variables"`
}

// inputError is why a record's inputs were not taken.
type inputError struct{ reason, detail string }

// parseInputs reads a list of inputs from the first of raws that is set. A
// list that is not of the documented shape is left out (the package or
// remote is kept, as before inputs were read); one over the bounds fails
// the record.
func parseInputs(field string, raws ...json.RawMessage) ([]rawInput, *inputError) {
	for _, raw := range raws {
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		var in []rawInput
		if json.Unmarshal(raw, &in) != nil {
			return nil, nil
		}
		if len(in) > maxInputs {
			return nil, &inputError{"too many list items", fmt.Sprintf("%s has %d items (max %d)", field, len(in), maxInputs)}
		}
		return in, nil
	}
	return nil, nil
}

// input is r's Input, within the bounds.
func (r rawInput) input(field string) (mcpdir.Input, *inputError) {
	in := mcpdir.Input{
		Value: scalar(r.Value), Default: scalar(r.Default),
		IsRequired: r.IsRequired || r.IsRequiredJS, IsSecret: r.IsSecret || r.IsSecretJS,
		Description: mcpdir.TruncateWords(r.Description, maxInputDesc), Format: r.Format, Placeholder: r.Placeholder,
	}
	for _, s := range []string{in.Value, in.Default, in.Placeholder} {
		if len(s) > maxInputValue {
			return in, &inputError{"field too long", fmt.Sprintf("a value in %s is %d bytes (max %d)", field, len(s), maxInputValue)}
		}
	}
	if len(in.Format) > maxInputName {
		in.Format = ""
	}
	if len(r.Choices) > maxChoices {
		return in, &inputError{"too many list items", fmt.Sprintf("%s.choices has %d items (max %d)", field, len(r.Choices), maxChoices)}
	}
	for _, c := range r.Choices {
		s := scalar(c)
		if len(s) > maxInputChoice {
			return in, &inputError{"field too long", fmt.Sprintf("a choice in %s is %d bytes (max %d)", field, len(s), maxInputChoice)}
		}
		in.Choices = append(in.Choices, s)
	}
	if len(r.Variables) > maxVariables {
		return in, &inputError{"too many list items", fmt.Sprintf("%s.variables has %d items (max %d)", field, len(r.Variables), maxVariables)}
	}
	for k, v := range r.Variables {
		if len(k) > maxInputName {
			return in, &inputError{"field too long", fmt.Sprintf("a variable's name in %s is %d bytes (max %d)", field, len(k), maxInputName)}
		}
		v.Variables = nil // one level: a variable's value is not a template
		vi, err := v.input(field + ".variables." + k)
		if err != nil {
			return in, err
		}
		if in.Variables == nil {
			in.Variables = map[string]mcpdir.Input{}
		}
		in.Variables[k] = vi
	}
	return in, nil
}

// keyValues are rs as environment variables or headers.
func keyValues(field string, rs []rawInput) ([]mcpdir.KeyValueInput, *inputError) {
	var out []mcpdir.KeyValueInput
	for i, r := range rs {
		f := fmt.Sprintf("%s[%d]", field, i)
		if len(r.Name) > maxInputName {
			return nil, &inputError{"field too long", fmt.Sprintf("%s.name is %d bytes (max %d)", f, len(r.Name), maxInputName)}
		}
		in, err := r.input(f)
		if err != nil {
			return nil, err
		}
		out = append(out, mcpdir.KeyValueInput{Name: r.Name, Input: in})
	}
	return out, nil
}

// arguments are rs as arguments.
func arguments(field string, rs []rawInput) ([]mcpdir.Argument, *inputError) {
	var out []mcpdir.Argument
	for i, r := range rs {
		f := fmt.Sprintf("%s[%d]", field, i)
		hint := cmp.Or(r.ValueHint, r.ValueHintJS)
		if len(r.Name) > maxInputName || len(hint) > maxInputName || len(r.Type) > maxInputName {
			return nil, &inputError{"field too long", fmt.Sprintf("%s's name, type or value hint is over %d bytes", f, maxInputName)}
		}
		in, err := r.input(f)
		if err != nil {
			return nil, err
		}
		out = append(out, mcpdir.Argument{Type: r.Type, Name: r.Name, ValueHint: hint, IsRepeated: r.IsRepeated || r.IsRepeatedJS, Input: in})
	}
	return out, nil
}

// scalar is a JSON string, number or boolean as a string: server.json
// says a value is a string, and records write numbers and booleans too.
func scalar(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case bool:
		if v {
			return "true"
		}
		return "false"
	case float64:
		return fmt.Sprint(v)
	case json.Number:
		return v.String()
	}
	return ""
}
