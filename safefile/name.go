package safefile

import "strings"

// Name is s made safe as one component of a path: letters, digits, '.',
// '-' and '_' kept, anything else '_', at most about 100 bytes, no leading
// dots (so never "." or ".." or a hidden file).
func Name(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 100 {
			break
		}
	}
	return strings.TrimLeft(b.String(), ".")
}
