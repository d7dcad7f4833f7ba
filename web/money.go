package web

import "strconv"

// formatUSD spells a cost: cents for most, four places below a cent.
func formatUSD(v float64) string {
	if v > 0 && v < 0.01 {
		return strconv.FormatFloat(v, 'f', 4, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}
