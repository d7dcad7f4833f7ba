package render

import "testing"

func TestValidateAccepts(t *testing.T) {
	for _, h := range []string{
		"",
		"plain text",
		"a &lt; b &amp;&amp; c &gt; d &quot;q&quot; > alone",
		"&#65; &#x1F600; &#X41;",
		"<b>x</b><strong>x</strong><i>x</i><em>x</em><u>x</u><ins>x</ins><s>x</s><strike>x</strike><del>x</del>",
		`<a href="https://x.example/?a=1&amp;b=2">l</a>`,
		`<a href='https://x.example/'>single quotes</a>`,
		`<pre><code class="language-go">x &lt; y</code></pre>`,
		"<pre>x</pre>",
		"<blockquote>q <b>b</b> <a href=\"https://x\">l</a> <code>c</code></blockquote>",
		"<blockquote expandable>long</blockquote>",
		`<span class="tg-spoiler">s</span><tg-spoiler>s</tg-spoiler>`,
		"<b><i><u><s>x</s></u></i></b>",
		"<b>bold <code>code</code></b>",
		`<a href="https://x"><b>bold link</b></a>`,
	} {
		if err := Validate(h); err != nil {
			t.Errorf("Validate(%q) = %v, want nil", h, err)
		}
	}
}

func TestValidateRejects(t *testing.T) {
	for _, h := range []string{
		"a < b",
		"a & b",
		"&nbsp;",
		"&copy;",
		"&#0;",
		"&#xD800;",
		"&#x110000;",
		"&amp",
		"<script>x</script>",
		"<br>",
		"<img src=\"x\">",
		"<b>x",
		"x</b>",
		"<b><i>x</b></i>",
		"<b",
		"<a>x</a>",
		`<a href="">x</a>`,
		`<a href="https://x" target="_blank">x</a>`,
		`<a href=https://x>x</a>`,
		`<a href="https://x?<y">x</a>`,
		`<a href="https://x?&bogus;">x</a>`,
		`<a href="https://x" href="https://y">x</a>`,
		`<b class="x">x</b>`,
		"<span>x</span>",
		`<span class="red">x</span>`,
		"<code><b>x</b></code>",
		"<pre><b>x</b></pre>",
		"<b><pre>x</pre></b>",
		"<blockquote><pre>x</pre></blockquote>",
		"<blockquote><blockquote>x</blockquote></blockquote>",
		`<a href="https://a"><a href="https://b">x</a></a>`,
		`<a href="https://a"><code>x</code></a>`,
		"</b x>",
	} {
		if err := Validate(h); err == nil {
			t.Errorf("Validate(%q) = nil, want an error", h)
		}
	}
}

func TestVisibleText(t *testing.T) {
	got := VisibleText(`<b>a &lt; b</b> &amp; <a href="https://x?a&amp;b">&quot;l&quot;</a> &#x1F600;&#65;`)
	if want := `a < b & "l" 😀A`; got != want {
		t.Errorf("VisibleText = %q, want %q", got, want)
	}
}
