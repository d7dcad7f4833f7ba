package view

import (
	"bytes"
	"encoding/json"
)

// field is one top-level key of a tool input, in the order Claude sent it:
// the order carries meaning (url before prompt) that a map would lose.
type field struct {
	Key string
	Raw json.RawMessage
}

type fields []field

// parseFields reads the top level of a JSON object. Anything else (or
// broken JSON) gives nil: the prompt then shows no arguments, never fails.
func parseFields(raw json.RawMessage) fields {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var out fields
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		key, ok := tok.(string)
		if !ok {
			return out
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return out
		}
		out = append(out, field{Key: key, Raw: v})
	}
	return out
}

// str returns the string value of key, or "" when absent or not a string.
// Like every accessor here it returns the Visible form: what the prompt
// shows of an input is what the tool gets, invisible characters included.
func (fs fields) str(key string) string {
	for _, f := range fs {
		if f.Key == key {
			var s string
			if json.Unmarshal(f.Raw, &s) == nil {
				return Visible(s)
			}
			return ""
		}
	}
	return ""
}

func (fs fields) boolean(key string) bool {
	for _, f := range fs {
		if f.Key == key {
			var b bool
			return json.Unmarshal(f.Raw, &b) == nil && b
		}
	}
	return false
}

func (fs fields) first(keys ...string) string {
	for _, k := range keys {
		if s := fs.str(k); s != "" {
			return s
		}
	}
	return ""
}

// edit is one old/new pair of an Edit or MultiEdit input.
type edit struct {
	Old        string `json:"old_string"`
	New        string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

// edits returns the edits of a MultiEdit input; known says every edit has
// only the keys an edit preview shows (old_string, new_string,
// replace_all), so none is hidden.
func (fs fields) edits() (es []edit, known bool) {
	for _, f := range fs {
		if f.Key != "edits" {
			continue
		}
		var raw []map[string]json.RawMessage
		if json.Unmarshal(f.Raw, &raw) != nil || json.Unmarshal(f.Raw, &es) != nil {
			return nil, false
		}
		known = true
		for i := range es {
			es[i].Old, es[i].New = Visible(es[i].Old), Visible(es[i].New)
			for k := range raw[i] {
				known = known && (k == "old_string" || k == "new_string" || k == "replace_all")
			}
		}
		return es, known
	}
	return nil, false
}

// display renders a value for a "key: value" line: strings as they are,
// everything else as compact JSON; Visible either way.
func display(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return Visible(s)
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) == nil {
		return Visible(buf.String())
	}
	return Visible(string(raw))
}
