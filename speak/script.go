package speak

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// CharsPerSecond is about how many characters of English a voice says in
// a second (150 words a minute), to turn a length of speech into text.
const CharsPerSecond = 15

// Rest closes a script cut short: the message holds the rest.
const Rest = "The rest is in the message."

// Script is an answer (Claude's Markdown) made for the ear: code blocks and
// tables are said in a few words ("A code block of 12 lines."), long paths
// by their last part, links by their text, Markdown marks dropped. A
// script longer than limit characters (limit > 0) is cut at the last sentence
// that fits, and Rest follows.
func Script(markdown string, limit int) string {
	var out []string
	lines := strings.Split(strings.ReplaceAll(markdown, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		switch {
		case strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~"):
			fence, n := line[:3], 0
			for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), fence); i++ {
				n++
			}
			out = append(out, "", counted("A code block of", n, "line"), "") // a paragraph of its own
		case strings.HasPrefix(line, "|"):
			n := 0
			for ; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|"); i++ {
				if !tableRule.MatchString(strings.TrimSpace(lines[i])) {
					n++
				}
			}
			i--
			// The header row names the columns; the rest are the rows.
			out = append(out, "", counted("A table of", max(n-1, 0), "row"), "")
		case line == "" || rule.MatchString(line):
			out = append(out, "")
		default:
			out = append(out, sayLine(line))
		}
	}
	text := joinParagraphs(out)
	if limit > 0 && utf8.RuneCountInString(text) > limit {
		text = cut(text, limit) + " " + Rest
	}
	return text
}

var (
	tableRule  = regexp.MustCompile(`^\|?[\s:|-]+\|?$`)
	rule       = regexp.MustCompile(`^([-*_]\s*){3,}$`)
	heading    = regexp.MustCompile(`^#{1,6}\s+`)
	listMark   = regexp.MustCompile(`^([-*+]|\d+[.)])\s+`)
	quoteMark  = regexp.MustCompile(`^(>\s?)+`)
	image      = regexp.MustCompile(`!\[([^\]]*)\]\([^)]*\)`)
	link       = regexp.MustCompile(`\[([^\]]+)\]\([^)]*\)`)
	bareURL    = regexp.MustCompile(`\bhttps?://[^\s)>\]]+`)
	inlineCode = regexp.MustCompile("`([^`]+)`")
	emphasis   = regexp.MustCompile(`(\*\*|__|~~|\*)([^*_~]+?)(\*\*|__|~~|\*)`)
	longPath   = regexp.MustCompile(`(?:~|\.{1,2})?(?:/[\w.@+-]+){3,}/?`)
	htmlTag    = regexp.MustCompile(`</?[a-zA-Z][^>]*>`)
)

// sayLine drops a line's Markdown marks and says its links, code and
// paths in words.
func sayLine(line string) string {
	line = heading.ReplaceAllString(line, "")
	line = quoteMark.ReplaceAllString(line, "")
	line = listMark.ReplaceAllString(line, "")
	line = image.ReplaceAllString(line, "$1")
	line = link.ReplaceAllString(line, "$1")
	line = bareURL.ReplaceAllString(line, "a link")
	line = inlineCode.ReplaceAllStringFunc(line, func(m string) string {
		code := strings.Trim(m, "`")
		if utf8.RuneCountInString(code) > 40 {
			return "a piece of code"
		}
		return code
	})
	line = longPath.ReplaceAllStringFunc(line, func(p string) string {
		p = strings.TrimRight(p, "/")
		return p[strings.LastIndex(p, "/")+1:]
	})
	line = emphasis.ReplaceAllString(line, "$2")
	line = htmlTag.ReplaceAllString(line, "")
	return strings.TrimSpace(line)
}

// counted is "A code block of 1 line." or "… of 12 lines.".
func counted(what string, n int, unit string) string {
	if n != 1 {
		unit += "s"
	}
	return fmt.Sprintf("%s %d %s.", what, n, unit)
}

// joinParagraphs joins lines: a blank one (or a block said in words)
// parts paragraphs, which a voice pauses between.
func joinParagraphs(lines []string) string {
	var paras []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			paras = append(paras, strings.Join(cur, " "))
			cur = nil
		}
	}
	for _, l := range lines {
		if l == "" {
			flush()
			continue
		}
		cur = append(cur, l)
	}
	flush()
	return strings.Join(paras, "\n\n")
}

// cut returns text up to limit runes, ending after the last sentence that
// fits (or the last word, when no sentence ends in time).
func cut(text string, limit int) string {
	r := []rune(text)
	head := string(r[:limit])
	if i := strings.LastIndexAny(head, ".!?"); i > len(head)/3 {
		return strings.TrimSpace(head[:i+1])
	}
	if i := strings.LastIndexAny(head, " \n"); i > 0 {
		head = head[:i]
	}
	return strings.TrimSpace(head) + "…"
}
