package tgtest

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseHTMLAccepts(t *testing.T) {
	tests := []struct {
		in   string
		text string
		ents []Entity
	}{
		{"plain", "plain", nil},
		{"a &lt; b &amp;&amp; c &gt; d &quot;q&quot;", `a < b && c > d "q"`, nil},
		{"&#65;&#x42;&#128512;", "AB😀", nil},
		{"1 > 0", "1 > 0", nil},
		{"<b>bold</b> <strong>s</strong>", "bold s", []Entity{{Type: "bold", Offset: 0, Length: 4}, {Type: "bold", Offset: 5, Length: 1}}},
		{"<i>i</i><em>e</em><u>u</u><ins>n</ins>", "ieun", []Entity{
			{Type: "italic", Offset: 0, Length: 1}, {Type: "italic", Offset: 1, Length: 1},
			{Type: "underline", Offset: 2, Length: 1}, {Type: "underline", Offset: 3, Length: 1}}},
		{"<s>a</s><strike>b</strike><del>c</del>", "abc", []Entity{
			{Type: "strikethrough", Offset: 0, Length: 1}, {Type: "strikethrough", Offset: 1, Length: 1},
			{Type: "strikethrough", Offset: 2, Length: 1}}},
		{`<span class="tg-spoiler">x</span><tg-spoiler>y</tg-spoiler>`, "xy", []Entity{
			{Type: "spoiler", Offset: 0, Length: 1}, {Type: "spoiler", Offset: 1, Length: 1}}},
		{`<a href="https://example.com/?a=1&amp;b=2">link</a>`, "link", []Entity{
			{Type: "text_link", Offset: 0, Length: 4, URL: "https://example.com/?a=1&b=2"}}},
		{`<a href='tg://user?id=42'>you</a>`, "you", []Entity{{Type: "text_link", Offset: 0, Length: 3, URL: "tg://user?id=42"}}},
		{"<code>x := 1</code>", "x := 1", []Entity{{Type: "code", Offset: 0, Length: 6}}},
		{`<code class="language-go">x</code>`, "x", []Entity{{Type: "code", Offset: 0, Length: 1}}},
		{"<pre>block</pre>", "block", []Entity{{Type: "pre", Offset: 0, Length: 5}}},
		{`<pre><code class="language-go">fmt.Println()</code></pre>`, "fmt.Println()", []Entity{
			{Type: "pre", Offset: 0, Length: 13, Language: "go"}}},
		{"<blockquote>q</blockquote>", "q", []Entity{{Type: "blockquote", Offset: 0, Length: 1}}},
		{"<blockquote expandable>q</blockquote>", "q", []Entity{{Type: "expandable_blockquote", Offset: 0, Length: 1}}},
		{`<tg-emoji emoji-id="5368324170671202286">👍</tg-emoji>`, "👍", []Entity{
			{Type: "custom_emoji", Offset: 0, Length: 2, CustomEmojiID: "5368324170671202286"}}},
		{"<b>a<i>b</i></b>", "ab", []Entity{{Type: "bold", Offset: 0, Length: 2}, {Type: "italic", Offset: 1, Length: 1}}},
		{"<B>upper</B>", "upper", []Entity{{Type: "bold", Offset: 0, Length: 5}}},
		{"<b>closed by</>", "closed by", []Entity{{Type: "bold", Offset: 0, Length: 9}}},
		{"<b unknown=attr>x</b >", "x", []Entity{{Type: "bold", Offset: 0, Length: 1}}},
		{"😀<b>x</b>", "😀x", []Entity{{Type: "bold", Offset: 2, Length: 1}}}, // offsets in UTF-16 units
		{"<b></b>empty tags make no entity", "empty tags make no entity", nil},
	}
	for _, tt := range tests {
		text, ents, err := ParseHTML(tt.in)
		if err != nil {
			t.Errorf("ParseHTML(%q) failed: %v", tt.in, err)
			continue
		}
		if text != tt.text || !reflect.DeepEqual(ents, tt.ents) {
			t.Errorf("ParseHTML(%q) = %q %+v, want %q %+v", tt.in, text, ents, tt.text, tt.ents)
		}
	}
}

func TestParseHTMLRefuses(t *testing.T) {
	tests := []struct{ in, msg string }{
		{"<br>", `Unsupported start tag "br" at byte offset 0`},
		{"<div>x</div>", `Unsupported start tag "div" at byte offset 0`},
		{"a < b", `Unsupported start tag "" at byte offset 2`},
		{"x <b", "Unclosed start tag at byte offset 2"},
		{"<a href", `Unclosed start tag "a" at byte offset 0`},
		{`<a href="x"`, "Unclosed start tag at byte offset 0"},
		{`<a ="x">y</a>`, `Empty attribute name in the tag "a" at byte offset 0`},
		{"<a href=x/>y</a>", "Unexpected end of name token at byte offset 8"},
		{"<span>x</span>", `Tag "span" must have class "tg-spoiler" at byte offset 0`},
		{`<span class="spoiler">x</span>`, `Tag "span" must have class "tg-spoiler" at byte offset 0`},
		{"x</b>", "Unexpected end tag at byte offset 1"},
		{"<b>x</b", "Unclosed end tag at byte offset 4"},
		{"<b>x</i>", `Unmatched end tag at byte offset 4, expected "</b>", found "</i>"`},
		{"<b><i>x</b></i>", `Unmatched end tag at byte offset 7, expected "</i>", found "</b>"`},
		{"<b>x", `Can't find end tag corresponding to start tag "b"`},
		{"<b><i>x</i>", `Can't find end tag corresponding to start tag "b"`},
		{`<tg-emoji emoji-id="x">y</tg-emoji>`, "Invalid custom emoji identifier specified"},
		{"&#xD800;", "Text contains invalid Unicode characters after decoding HTML entities, check for unmatched surrogate code units"},
		// Stricter than Telegram: an unescaped '&' is a renderer bug even where Telegram shows it literally.
		{"fish & chips", "Character '&' at byte offset 5 must be escaped as &amp; (tgtest strict HTML)"},
		{"&nbsp;", "Character '&' at byte offset 0 must be escaped as &amp; (tgtest strict HTML)"},
		{"&lt no semicolon", "Character '&' at byte offset 0 must be escaped as &amp; (tgtest strict HTML)"},
		{`<a href="/?a=1&lt=2">x</a>`, "Character '&' at byte offset 14 must be escaped as &amp; (tgtest strict HTML)"},
	}
	for _, tt := range tests {
		_, _, err := ParseHTML(tt.in)
		if err == nil {
			t.Errorf("ParseHTML(%q) accepted, want %q", tt.in, tt.msg)
			continue
		}
		if want := "can't parse entities: " + tt.msg; err.Error() != want {
			t.Errorf("ParseHTML(%q) error\n got %q\nwant %q", tt.in, err.Error(), want)
		}
	}
}

func TestParseHTMLLenientKeepsStrayAmpersands(t *testing.T) {
	for in, want := range map[string]string{
		"fish & chips":     "fish & chips",
		"&nbsp;&laquo;":    "&nbsp;&laquo;",
		"&lt no semicolon": "< no semicolon",
	} {
		got, _, err := ParseHTMLLenient(in)
		if err != nil || got != want {
			t.Errorf("ParseHTMLLenient(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, _, err := ParseHTMLLenient("<b>x"); err == nil {
		t.Error("lenient mode must still refuse unclosed tags")
	}
}

func TestUTF16Len(t *testing.T) {
	if got := UTF16Len("a😀é" + strings.Repeat("x", 3)); got != 1+2+1+3 {
		t.Errorf("UTF16Len = %d", got)
	}
}
