package cron

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ParseError reports why an expression was rejected. Field is one of
// "seconds", "minutes", "hours", "day-of-month", "month", "day-of-week",
// "year" or "expression" (for problems with the expression as a whole).
type ParseError struct {
	Field  string
	Reason string

	// quartzAccepts marks rejections of text that Quartz 2.3.2 accepts but
	// silently misreads (it ignores trailing text, steps after names, empty
	// list elements, ...). We reject such text on purpose so the user finds
	// out; the Quartz differential tests use this mark to tell these
	// deliberate differences from bugs.
	quartzAccepts bool
}

func (e *ParseError) Error() string {
	return e.Field + ": " + e.Reason
}

// Field indexes, in expression order.
const (
	fSecond = iota
	fMinute
	fHour
	fDayOfMonth
	fMonth
	fDayOfWeek
	fYear
)

const (
	minYear = 1970
	// maxYear is the last year the expression language allows, as documented
	// in the Quartz tutorial ("1970-2099"). Quartz 2.3.2 itself does not
	// check explicit years at all and lets "*" run to the current year + 100.
	maxYear = 2099
)

type fieldInfo struct {
	name     string
	min, max int
	// maxStep is the largest step Quartz accepts after "*" or a single start
	// value ("*/n", "a/n"); 0 means no limit. Quartz does not check the
	// step of "a-b/n" at all, and neither do we (a step larger than the range
	// simply selects the start value).
	maxStep int
	names   []string // names[i] is the name of value min+i; nil if none
	hint    string   // shown after the range in out-of-range errors
}

var fields = [...]fieldInfo{
	fSecond:     {name: "seconds", min: 0, max: 59, maxStep: 59},
	fMinute:     {name: "minutes", min: 0, max: 59, maxStep: 59},
	fHour:       {name: "hours", min: 0, max: 23, maxStep: 23},
	fDayOfMonth: {name: "day-of-month", min: 1, max: 31, maxStep: 31},
	fMonth: {name: "month", min: 1, max: 12, maxStep: 12, hint: " (JAN-DEC)",
		names: []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}},
	fDayOfWeek: {name: "day-of-week", min: 1, max: 7, maxStep: 7, hint: " (SUN-SAT)",
		names: []string{"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}},
	fYear: {name: "year", min: minYear, max: maxYear},
}

// Parse parses a Quartz cron expression evaluated in loc (nil = UTC).
//
// The expression has 6 or 7 fields separated by spaces or tabs:
// seconds minutes hours day-of-month month day-of-week [year]. Errors are
// *ParseError values naming the field at fault.
func Parse(expr string, loc *time.Location) (*Expression, error) {
	if loc == nil {
		loc = time.UTC
	}
	for i := 0; i < len(expr); i++ {
		if c := expr[i]; c != ' ' && c != '\t' && (c < 0x21 || c > 0x7e) {
			return nil, &ParseError{Field: "expression",
				Reason: fmt.Sprintf("unexpected character %q at position %d (fields are separated by spaces or tabs)", rune(c), i+1)}
		}
	}
	// Quartz splits on spaces and tabs only, and upper-cases the text with
	// Locale.US; the text is ASCII by now, so ToUpper is the same thing.
	parts := strings.FieldsFunc(strings.ToUpper(expr), func(r rune) bool { return r == ' ' || r == '\t' })
	if len(parts) == 0 {
		return nil, &ParseError{Field: "expression", Reason: "the expression is empty"}
	}
	if len(parts) < 6 || len(parts) > 7 {
		pe := &ParseError{Field: "expression", Reason: fmt.Sprintf(
			"expected 6 or 7 fields (seconds minutes hours day-of-month month day-of-week [year]) but found %d", len(parts))}
		pe.quartzAccepts = len(parts) > 7 // Quartz ignores the extra fields
		return nil, pe
	}

	e := &Expression{text: strings.Join(parts, " "), loc: loc}
	var err error
	if e.seconds, err = parseBits(fSecond, parts[0]); err != nil {
		return nil, err
	}
	if e.minutes, err = parseBits(fMinute, parts[1]); err != nil {
		return nil, err
	}
	var b []uint64
	if b, err = parseSetField(fHour, parts[2]); err != nil {
		return nil, err
	}
	e.hours = uint32(b[0])
	if e.dom, err = parseDayOfMonth(parts[3]); err != nil {
		return nil, err
	}
	if b, err = parseSetField(fMonth, parts[4]); err != nil {
		return nil, err
	}
	e.months = uint16(b[0])
	if e.dow, err = parseDayOfWeek(parts[5]); err != nil {
		return nil, err
	}
	yearText := "*"
	if len(parts) == 7 {
		yearText = parts[6]
	}
	if b, err = parseSetField(fYear, yearText); err != nil {
		return nil, err
	}
	copy(e.years[:], b)

	// Quartz: "Support for specifying both a day-of-week AND a day-of-month
	// parameter is not implemented." Exactly one of the two must be "?".
	switch {
	case e.dom.kind == domAny && e.dow.kind == dowAny:
		return nil, &ParseError{Field: "day-of-week",
			Reason: `"?" cannot be used in both day-of-month and day-of-week; use "?" in exactly one of them`}
	case e.dom.kind != domAny && e.dow.kind != dowAny:
		return nil, &ParseError{Field: "day-of-week", Reason: fmt.Sprintf(
			`day-of-month %q and day-of-week %q cannot both be set; one of them must be "?" (Quartz does not support both)`,
			parts[3], parts[5])}
	}
	e.buildDayTable()
	return e, nil
}

// MustParse is like Parse but panics on error. For tests and constants.
func MustParse(expr string, loc *time.Location) *Expression {
	e, err := Parse(expr, loc)
	if err != nil {
		panic(err)
	}
	return e
}

func parseBits(f int, text string) (uint64, error) {
	b, err := parseSetField(f, text)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

// parseSetField parses a plain list field ("*", "a", "a-b", "a/n", "a-b/n",
// "*/n" and comma lists of these) into a bitset with bit v-offset set for
// each selected value v, where offset is 1970 for years and 0 otherwise.
func parseSetField(f int, text string) ([]uint64, error) {
	fi := &fields[f]
	if text == "?" {
		return nil, fieldErr(f, `"?" is only allowed in day-of-month or day-of-week`)
	}
	// "L", "W", "#" and "?" belong to the day fields, whose parsers deal with
	// them before calling this (a "W" in day-of-week is an error there too).
	// The names JUL and WED contain an L and a W.
	probe := strings.ReplaceAll(strings.ReplaceAll(text, "JUL", ""), "WED", "")
	for _, c := range probe {
		switch c {
		case 'L', 'W', '#', '?':
			if f == fDayOfWeek && c == 'W' {
				pe := fieldErr(f, `"W" is only allowed in day-of-month (e.g. "15W" = the weekday nearest the 15th)`)
				pe.quartzAccepts = quartzMisreads(text)
				return nil, pe
			}
			pe := fieldErr(f, fmt.Sprintf("%q is only allowed in day-of-month or day-of-week%s", string(c), specialHint(c)))
			pe.quartzAccepts = (c == 'L' || c == 'W') && quartzMisreads(text)
			return nil, pe
		}
	}
	base := 0
	if f == fYear {
		base = minYear
	}
	bits := make([]uint64, (fi.max-base)/64+1)
	items := strings.Split(text, ",")
	for _, item := range items {
		if item == "" {
			pe := fieldErr(f, fmt.Sprintf("%q has an empty list element", text))
			pe.quartzAccepts = true // Quartz skips empty elements
			return nil, pe
		}
		if err := parseItem(f, item, func(v int) { bits[(v-base)/64] |= 1 << uint((v-base)%64) }); err != nil {
			return nil, err
		}
	}
	return bits, nil
}

var (
	quartzLItem = regexp.MustCompile(`^L(W|-[0-9]*W?)?$`)
	quartzWItem = regexp.MustCompile(`^[0-9]+-[0-9]+[^/]`)
)

// quartzMisreads reports whether Quartz accepts a plain field holding an "L"
// or "W" item (it ignores "L" items outside the day fields, leaving an empty
// set that later throws, and ignores text after "a-b").
func quartzMisreads(text string) bool {
	for _, item := range strings.Split(text, ",") {
		if strings.ContainsAny(item, "LW") && !quartzLItem.MatchString(item) && !quartzWItem.MatchString(item) {
			return false
		}
	}
	return true
}

func specialHint(c rune) string {
	switch c {
	case 'L':
		return ` ("L" means last)`
	case 'W':
		return ` ("W" means nearest weekday)`
	case '#':
		return ` ("#" means nth day of the week in the month)`
	}
	return ""
}

// parseItem parses one list element of a plain field and calls add for each
// value it selects.
func parseItem(f int, item string, add func(int)) error {
	fi := &fields[f]
	if item == "*" {
		for v := fi.min; v <= fi.max; v++ {
			add(v)
		}
		return nil
	}
	// "*/n" and "/n" (Quartz treats a missing start like "*").
	if rest, ok := strings.CutPrefix(item, "*"); ok || strings.HasPrefix(item, "/") {
		if !ok {
			rest = item
		}
		if !strings.HasPrefix(rest, "/") {
			pe := fieldErr(f, fmt.Sprintf(`unexpected %q after "*" in %q`, rest, item))
			pe.quartzAccepts = true
			return pe
		}
		step, err := parseStep(f, item, rest[1:], true)
		if err != nil {
			return err
		}
		for v := fi.min; v <= fi.max; v += step {
			add(v)
		}
		return nil
	}

	start, rest, isName, err := parseValue(f, item, item)
	if err != nil {
		return err
	}
	end, hasEnd := -1, false
	if r, ok := strings.CutPrefix(rest, "-"); ok {
		var endName bool
		end, rest, endName, err = parseValue(f, item, r)
		if err != nil {
			// Quartz checks only that a range's end is not above the
			// maximum ("5-0" in months is 5-12 to it).
			if pe, ok := errors.AsType[*ParseError](err); ok && leadingNumber(r) >= 0 && leadingNumber(r) < fi.min {
				pe.quartzAccepts = true
			}
			return err
		}
		if endName != isName {
			return fieldErr(f, fmt.Sprintf("%q mixes a name and a number in one range; use two names or two numbers", item))
		}
		hasEnd = true
	}
	step := 0
	if r, ok := strings.CutPrefix(rest, "/"); ok {
		if isName {
			// Quartz silently drops a step after a name or a named range
			// ("MON-FRI/2" means MON-FRI to Quartz). Refuse rather than
			// pretend.
			pe := fieldErr(f, fmt.Sprintf("%q: a step cannot follow a name (Quartz would ignore it); use numbers, e.g. %q", item, numericExample(f)))
			pe.quartzAccepts = true
			return pe
		}
		// Quartz limits the step of "a/n" but not of "a-b/n".
		if step, err = parseStep(f, item, r, !hasEnd); err != nil {
			return err
		}
		rest = ""
	}
	if rest != "" {
		pe := fieldErr(f, fmt.Sprintf("unexpected %q in %q", rest, item))
		pe.quartzAccepts = true // Quartz ignores most trailing text
		return pe
	}

	switch {
	case !hasEnd && step == 0: // "a"
		add(start)
		return nil
	case !hasEnd: // "a/n": from a to the field's maximum
		end = fi.max
	}
	if step == 0 {
		step = 1
	}
	if end >= start {
		for v := start; v <= end; v += step {
			add(v)
		}
		return nil
	}
	// A range whose end is before its start wraps around ("22-2" hours,
	// "NOV-FEB", "FRI-MON", "50-10" seconds), stepping through the wrap
	// the way Quartz does: it adds the field's size to the end and reduces
	// each value modulo that size.
	if f == fYear {
		return fieldErr(f, fmt.Sprintf("range %q goes backwards; years cannot wrap around", item))
	}
	size := fi.max - fi.min + 1
	for v := start; v <= end+size; v += step {
		add((v-fi.min)%size + fi.min)
	}
	return nil
}

func numericExample(f int) string {
	if f == fMonth {
		return "1-12/3"
	}
	return "2-6/2"
}

// parseValue reads a number or (for month and day-of-week) a three-letter
// name at the start of s and checks its range. item is the whole list
// element, for messages.
func parseValue(f int, item, s string) (v int, rest string, isName bool, err error) {
	fi := &fields[f]
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n > 0 {
		v, convErr := strconv.ParseInt(s[:n], 10, 32)
		if convErr != nil || int(v) < fi.min || int(v) > fi.max {
			pe := fieldErr(f, fmt.Sprintf("%q is out of range %d-%d%s", s[:n], fi.min, fi.max, fi.hint))
			// Quartz does not check years at all.
			pe.quartzAccepts = f == fYear && convErr == nil
			return 0, "", false, pe
		}
		return int(v), s[n:], false, nil
	}
	for n < len(s) && s[n] >= 'A' && s[n] <= 'Z' {
		n++
	}
	if n == 0 {
		if s == "" {
			return 0, "", false, fieldErr(f, fmt.Sprintf("%q is missing a value", item))
		}
		return 0, "", false, fieldErr(f, fmt.Sprintf("unexpected %q in %q", s[:1], item))
	}
	word := s[:n]
	if fi.names == nil {
		return 0, "", false, fieldErr(f, fmt.Sprintf("%q is not a number", word))
	}
	for i, name := range fi.names {
		if word == name {
			return fi.min + i, s[n:], true, nil
		}
		// "FRIL": a day name followed by the "L" option.
		if f == fDayOfWeek && len(word) > 3 && word[:3] == name && word[3] == 'L' {
			return fi.min + i, s[3:], true, nil
		}
	}
	kind := "month"
	if f == fDayOfWeek {
		kind = "day"
	}
	pe := fieldErr(f, fmt.Sprintf("%q is not a %s name (use %s-%s or %d-%d)", word, kind,
		fi.names[0], fi.names[len(fi.names)-1], fi.min, fi.max))
	// Quartz reads only the first three letters ("MONDAY" is MON to it).
	pe.quartzAccepts = len(word) > 3 && strings.Contains(strings.Join(fi.names, " "), word[:3])
	return 0, "", false, pe
}

// parseStep parses the number after "/". limit says whether Quartz's upper
// bound on steps applies.
func parseStep(f int, item, s string, limit bool) (int, error) {
	fi := &fields[f]
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n == 0 {
		return 0, fieldErr(f, fmt.Sprintf(`%q: "/" must be followed by a number`, item))
	}
	if n < len(s) {
		pe := fieldErr(f, fmt.Sprintf("unexpected %q after the step in %q", s[n:], item))
		// Quartz rejects this after "*/" and "a/", ignores it after "a-b/".
		pe.quartzAccepts = !limit
		return 0, pe
	}
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, fieldErr(f, fmt.Sprintf("step %q is too large", s))
	}
	if v < 1 {
		// Quartz accepts "/0" and then ignores the step or the range,
		// depending on the form. Nobody means that.
		pe := fieldErr(f, fmt.Sprintf("%q: the step after \"/\" must be at least 1", item))
		pe.quartzAccepts = true
		return 0, pe
	}
	if limit && fi.maxStep > 0 && int(v) > fi.maxStep {
		return 0, fieldErr(f, fmt.Sprintf("%q: the step after \"/\" must be at most %d", item, fi.maxStep))
	}
	return int(v), nil
}

func fieldErr(f int, reason string) *ParseError {
	return &ParseError{Field: fields[f].name, Reason: reason}
}

// parseDayOfMonth parses "?", "L", "L-n", "LW", "L-nW", "nW" or a plain list.
func parseDayOfMonth(text string) (domSpec, error) {
	const f = fDayOfMonth
	if text == "?" {
		return domSpec{kind: domAny}, nil
	}
	if strings.ContainsAny(text, "?") {
		pe := fieldErr(f, fmt.Sprintf(`"?" must be the whole field, not part of %q`, text))
		// Quartz takes any list holding "?" (or "?" plus junk) as "?".
		pe.quartzAccepts = strings.HasPrefix(text, "?") || strings.Contains(","+text+",", ",?,")
		return domSpec{}, pe
	}
	if strings.ContainsAny(text, "#") {
		return domSpec{}, fieldErr(f, `"#" is only allowed in day-of-week (e.g. "6#3" = third Friday)`)
	}
	if !strings.ContainsAny(text, "LW") {
		b, err := parseSetField(f, text)
		if err != nil {
			return domSpec{}, err
		}
		return domSpec{kind: domSet, set: uint32(b[0])}, nil
	}
	if strings.Contains(text, ",") {
		if strings.Contains(text, "L") {
			return domSpec{}, fieldErr(f, fmt.Sprintf(`%q: "L" cannot be combined with other days in a list`, text))
		}
		pe := fieldErr(f, fmt.Sprintf(`%q: "W" needs a single day, not a list (e.g. "15W")`, text))
		pe.quartzAccepts = true // Quartz applies W to the smallest day only
		return domSpec{}, pe
	}
	if rest, ok := strings.CutPrefix(text, "L"); ok {
		spec := domSpec{kind: domLast}
		if r, ok := strings.CutPrefix(rest, "-"); ok {
			n := 0
			for n < len(r) && r[n] >= '0' && r[n] <= '9' {
				n++
			}
			if n == 0 {
				pe := fieldErr(f, fmt.Sprintf(`%q: "L-" must be followed by the number of days before the last day, e.g. "L-3"`, text))
				pe.quartzAccepts = r == "W" // Quartz reads "L-W" as "LW"
				return domSpec{}, pe
			}
			v, err := strconv.ParseInt(r[:n], 10, 32)
			if err != nil || v > 30 {
				return domSpec{}, fieldErr(f, fmt.Sprintf("%q: the offset from the last day must be at most 30", text))
			}
			spec.n = int(v)
			rest = r[n:]
		}
		switch rest {
		case "":
		case "W":
			spec.kind = domLastWeekday
		default:
			return domSpec{}, fieldErr(f, fmt.Sprintf(`unexpected %q in %q (allowed: "L", "L-3", "LW", "L-3W")`, rest, text))
		}
		return spec, nil
	}
	if i := strings.Index(text, "W"); i > 0 && i < len(text)-1 && allDigits(text[:i]) {
		pe := fieldErr(f, fmt.Sprintf("unexpected %q after %q", text[i+1:], text[:i+1]))
		pe.quartzAccepts = true // Quartz ignores text after "nW"
		return domSpec{}, pe
	}
	if day, ok := strings.CutSuffix(text, "W"); ok && day != "" && allDigits(day) {
		v, err := strconv.ParseInt(day, 10, 32)
		if err != nil || v < 1 || v > 31 {
			pe := fieldErr(f, fmt.Sprintf("%q: day %q is out of range 1-31", text, day))
			pe.quartzAccepts = err == nil && v == 0 // and then loops forever
			return domSpec{}, pe
		}
		return domSpec{kind: domNearestWeekday, n: int(v)}, nil
	}
	if strings.Contains(text, "L") {
		return domSpec{}, fieldErr(f, fmt.Sprintf(`%q: "L" must come first in day-of-month ("L", "L-3", "LW", "L-3W")`, text))
	}
	pe := fieldErr(f, fmt.Sprintf(`%q: "W" can only follow a single day number, e.g. "15W"`, text))
	// Quartz accepts "1-5W" as "1-5" (and e.g. "5/2W" it rejects).
	pe.quartzAccepts = strings.Contains(text, "-") && !strings.Contains(text, "/")
	return domSpec{}, pe
}

// parseDayOfWeek parses "?", "L", "nL", "n#k" or a plain list.
func parseDayOfWeek(text string) (dowSpec, error) {
	const f = fDayOfWeek
	if text == "?" {
		return dowSpec{kind: dowAny}, nil
	}
	if strings.ContainsAny(text, "?") {
		pe := fieldErr(f, fmt.Sprintf(`"?" must be the whole field, not part of %q`, text))
		// Quartz takes any list holding "?" (or "?" plus junk) as "?".
		pe.quartzAccepts = strings.HasPrefix(text, "?") || strings.Contains(","+text+",", ",?,")
		return dowSpec{}, pe
	}
	hasHash := strings.Contains(text, "#")
	hasL := strings.Contains(text, "L")
	if !hasHash && !hasL {
		b, err := parseSetField(f, text)
		if err != nil {
			return dowSpec{}, err
		}
		return dowSpec{kind: dowSet, set: uint8(b[0])}, nil
	}
	if strings.Contains(text, ",") {
		if hasL {
			return dowSpec{}, fieldErr(f, fmt.Sprintf(`%q: "L" cannot be combined with other days in a list`, text))
		}
		pe := fieldErr(f, fmt.Sprintf(`%q: "#" cannot be combined with other days in a list`, text))
		// Quartz rejects two "#" items; with one it uses the smallest day.
		pe.quartzAccepts = strings.Count(text, "#") == 1
		return dowSpec{}, pe
	}
	if text == "L" {
		// A bare "L" in day-of-week "simply means 7 or SAT" (Quartz docs).
		return dowSpec{kind: dowSet, set: 1 << 7}, nil
	}
	day, rest, _, err := parseValue(f, text, text)
	if err != nil {
		if pe, ok := errors.AsType[*ParseError](err); ok && strings.Contains(text, "#") && text[0] >= '0' && text[0] <= '9' {
			pe.quartzAccepts = true // Quartz does not range-check the day before "#"
		}
		if pe, ok := errors.AsType[*ParseError](err); ok && strings.HasPrefix(text, "L") {
			pe.Reason = fmt.Sprintf(`%q: a bare "L" means Saturday; for the last given weekday of the month put the day first, e.g. "6L"`, text)
			pe.quartzAccepts = true // Quartz reads "L..." as "L"
		}
		return dowSpec{}, err
	}
	if rest == "L" {
		return dowSpec{kind: dowLast, day: day}, nil
	}
	if k, ok := strings.CutPrefix(rest, "#"); ok {
		if len(k) == 0 || !allDigits(k) {
			return dowSpec{}, fieldErr(f, fmt.Sprintf(`%q: "#" must be followed by a number from 1 to 5`, text))
		}
		v, err := strconv.ParseInt(k, 10, 32)
		if err != nil || v < 1 || v > 5 {
			return dowSpec{}, fieldErr(f, fmt.Sprintf(`%q: the number after "#" must be from 1 to 5`, text))
		}
		return dowSpec{kind: dowNth, day: day, n: int(v)}, nil
	}
	pe := fieldErr(f, fmt.Sprintf(`unexpected %q in %q (allowed forms: "6L" = last Friday, "6#3" = third Friday)`, rest, text))
	// Quartz ignores text after "nL"; it rejects a "-"/"/" after a number
	// only when a non-digit follows.
	pe.quartzAccepts = strings.HasPrefix(rest, "L")
	return dowSpec{}, pe
}

// leadingNumber returns the value of the digits at the start of s, or -1.
func leadingNumber(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	v, err := strconv.Atoi(s[:n])
	if n == 0 || err != nil {
		return -1
	}
	return v
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
