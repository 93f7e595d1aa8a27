# nm -S lines first, then `memprism dump --accesses` lines: per object and
# direction, the function holding the code addresses, the accesses and the
# number of distinct code addresses. (mawk has no strtonum; the addresses
# of a -no-pie program fit a double.)
function hex(s, i, v) {
	s = tolower(s); sub(/^0x/, "", s); v = 0
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
FNR == NR { if (NF == 4) { lo[$4] = hex($1); hi[$4] = lo[$4] + hex($2) } next }
($1 == "ld" || $1 == "st") && $3 == "size" && $5 == "ip" {
	a = hex($2); o = ""
	for (s in lo) if (s ~ /^(a1|b1|a2|b2|c2|a3|b3|c3|big)$/ && a >= lo[s] && a < hi[s]) o = s
	if (o == "") next
	ip = hex($6); f = "?"
	for (s in lo) if (s ~ /^(two|three|far|wide|main)$/ && ip >= lo[s] && ip < hi[s]) f = s
	k = o " " $1 " " f; n[k]++
	if (!((k, $6) in seen)) { seen[k, $6] = 1; d[k]++ }
}
END { for (k in n) print k, n[k], d[k] }
