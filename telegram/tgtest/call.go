package tgtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"time"
)

// Call is one request the server answered, whatever its encoding was.
type Call struct {
	// Method is the canonical Bot API name ("sendMessage") whatever case the client used.
	Method string
	// Params holds every parameter as text: form and query values as sent, JSON-body strings unquoted and
	// other JSON values (numbers, objects such as reply_markup) as their JSON text. Read-only: calls share it.
	Params map[string]string
	// Time is when the request arrived, on the server's clock.
	Time time.Time
	// Status is the HTTP status answered; 0 when the fault injection hung or dropped the call, or the client
	// left a held getUpdates before its answer.
	Status int
	// Response is the body answered (a Failure's RawBody verbatim, which is not JSON).
	Response json.RawMessage
	// Files are the files uploaded in a multipart body, by field name (Params holds "attach://<file name>" for
	// them). Read-only: calls share it.
	Files map[string]Upload
}

// Upload is one file of a multipart request.
type Upload struct {
	Name string // the part's file name
	Data []byte
}

// Param returns a parameter's text, "" when absent.
func (c Call) Param(name string) string { return c.Params[name] }

// Int64 returns a numeric parameter, 0 when absent or not a number.
func (c Call) Int64(name string) int64 {
	v, _ := strconv.ParseInt(c.Params[name], 10, 64) // absent and malformed both read as 0 here
	return v
}

// Bool reads "true"/"1" as true.
func (c Call) Bool(name string) bool { return parseBool(c.Params[name]) }

// Decode unmarshals a JSON-valued parameter such as reply_markup or reply_parameters.
func (c Call) Decode(name string, dst any) error {
	v, ok := c.Params[name]
	if !ok {
		return fmt.Errorf("tgtest: parameter %q absent", name)
	}
	if err := json.Unmarshal([]byte(v), dst); err != nil {
		return fmt.Errorf("tgtest: decode parameter %q: %w", name, err)
	}
	return nil
}

// OK reports whether the call was answered {"ok":true}.
func (c Call) OK() bool { return c.Status == http.StatusOK }

// Description is the error description answered, "" on success.
func (c Call) Description() string {
	var r struct {
		Description string `json:"description"`
	}
	_ = json.Unmarshal(c.Response, &r) // a success or a raw fault body has no description
	return r.Description
}

func parseBool(v string) bool { return v == "true" || v == "1" || v == "True" }

// MaxUpload is the largest file a bot may upload (sendDocument), 50 MB.
const MaxUpload = 50 << 20

// maxBody bounds a request: one file of MaxUpload and room for the other fields. Telegram's front end refuses a
// larger body with 413 before the method sees it.
const maxBody = MaxUpload + 1<<20

// errBodyTooLarge is Telegram's answer to a body over its limit.
var errBodyTooLarge = &apiError{code: http.StatusRequestEntityTooLarge, description: "Request Entity Too Large"}

// parseParams merges query parameters with a multipart, urlencoded or JSON body, the three encodings the Bot
// API accepts. Body values win over query values, as they do for Telegram. Uploaded files come back apart.
func parseParams(r *http.Request) (map[string]string, map[string]Upload, error) {
	out := map[string]string{}
	for k, v := range r.URL.Query() {
		out[k] = v[0]
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return out, nil, nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return nil, nil, fmt.Errorf("content type %q: %w", ct, err)
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBody))
	if err != nil {
		return nil, nil, fmt.Errorf("read body: %w", err)
	}
	if len(body) == 0 {
		// go-telegram/bot sends parameterless calls (getMe) as multipart with an empty body; Telegram accepts it.
		return out, nil, nil
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var files map[string]Upload
	switch mt {
	case "multipart/form-data":
		if err := r.ParseMultipartForm(maxBody); err != nil {
			return nil, nil, fmt.Errorf("multipart body: %w", err)
		}
		for k, v := range r.MultipartForm.Value {
			out[k] = v[0]
		}
		for k, fhs := range r.MultipartForm.File {
			out[k] = "attach://" + fhs[0].Filename
			data, err := readPart(fhs[0])
			if err != nil {
				return nil, nil, fmt.Errorf("multipart file %s: %w", k, err)
			}
			if files == nil {
				files = map[string]Upload{}
			}
			files[k] = Upload{Name: fhs[0].Filename, Data: data}
		}
	case "application/x-www-form-urlencoded":
		if err := r.ParseForm(); err != nil {
			return nil, nil, fmt.Errorf("form body: %w", err)
		}
		for k, v := range r.PostForm {
			out[k] = v[0]
		}
	case "application/json":
		var body map[string]json.RawMessage
		dec := json.NewDecoder(r.Body)
		dec.UseNumber()
		if err := dec.Decode(&body); err != nil {
			return nil, nil, fmt.Errorf("json body: %w", err)
		}
		for k, raw := range body {
			var s string
			switch {
			case bytes.Equal(raw, []byte("null")):
				continue
			case json.Unmarshal(raw, &s) == nil:
				out[k] = s
			default:
				out[k] = string(raw)
			}
		}
	}
	return out, files, nil
}

func readPart(fh *multipart.FileHeader) ([]byte, error) {
	f, err := fh.Open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
