package view

import (
	"strings"

	"github.com/untether/untether/telegram/render"
)

// Rich-message forms (Bot API 10.1) of texts that fold better than they
// go as a file: /diff, an approval's whole input.

// DiffRich is /diff as one rich message: the summary, then each file's
// diff folded under its name and size, so the chat shows the list and the
// user opens what they want to read. ok is false when it is larger than a
// rich message holds (the .diff document is then the way).
func DiffRich(summary, patch string) (string, bool) {
	if len(patch) > 2*render.RichMaxChars {
		return "", false // escaping it only to find it too long
	}
	html := paragraphs(summary)
	for _, file := range splitPatch(strings.TrimRight(Visible(patch), "\n")) {
		lines := strings.Count(file.text, "\n") + 1
		html += render.Details(file.name+" · "+plural(lines, "line", "lines"),
			`<pre><code class="language-diff">`+esc(file.text)+"</code></pre>")
	}
	return html, render.FitsRich(html)
}

// FullInputRich is an approval's whole input as a rich message that folds
// it (name: the file it would have been sent as; text: the input as the
// file holds it), or false when it is too large for one.
func FullInputRich(caption, name, text string) (string, bool) {
	lines := strings.Count(strings.TrimRight(text, "\n"), "\n") + 1
	html := paragraphs(caption) + render.Details(name+" · "+plural(lines, "line", "lines"),
		"<pre>"+esc(strings.TrimRight(text, "\n"))+"</pre>")
	return html, render.FitsRich(html)
}

// paragraphs turns Telegram HTML lines into rich paragraphs.
func paragraphs(html string) string {
	var b strings.Builder
	for _, line := range strings.Split(html, "\n") {
		if strings.TrimSpace(line) != "" {
			b.WriteString("<p>" + line + "</p>")
		}
	}
	return b.String()
}

type patchFile struct{ name, text string }

// splitPatch cuts a git diff at its "diff --git a/… b/…" headers; text
// before the first header (none from git) is a part of its own.
func splitPatch(patch string) []patchFile {
	var out []patchFile
	for _, chunk := range strings.SplitAfter(patch, "\n") {
		if strings.HasPrefix(chunk, "diff --git ") || len(out) == 0 {
			name := "diff"
			if h, ok := strings.CutPrefix(strings.TrimRight(chunk, "\n"), "diff --git "); ok {
				if i := strings.LastIndex(h, " b/"); i >= 0 {
					name = h[i+3:]
				} else {
					name = h
				}
			}
			out = append(out, patchFile{name: name})
		}
		out[len(out)-1].text += chunk
	}
	for i := range out {
		out[i].text = strings.TrimRight(out[i].text, "\n")
	}
	return out
}
