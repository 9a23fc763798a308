package main

// Helm's presentation of template errors (helm/helm pkg/engine/engine.go, Helm 3.18+):
//
//   parse errors:  "parse error at (LOCATION): LAST-PART"
//   fail/required: "execution error at (LOCATION): MESSAGE"
//   other execution errors whose whole wrap chain is made of text/template messages:
//       LOCATION
//         executing "NAME" at <NODE>:
//           MESSAGE
//     one block per level (include nests), trimmed;
//   anything else: Go's message unchanged.
//
// This is a re-implementation from the observed behaviour; the public cases in
// /work/shared/template-cases pin it down.

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"text/template"
)

var warnPattern = regexp.MustCompile(`(?s)` + warnStart + `(.*)` + warnEnd)

func helmParseError(filename string, err error) error {
	parts := strings.Split(err.Error(), ": ")
	if len(parts) == 1 {
		return fmt.Errorf("parse error in (%s): %s", filename, err)
	}
	return fmt.Errorf("parse error at (%s): %s", parts[1], parts[len(parts)-1])
}

type traceLevel struct {
	location string // "main:1:3"
	function string // `executing "main" at <node>:`
	message  string
}

func (l traceLevel) String() string {
	var b strings.Builder
	if l.location != "" {
		b.WriteString(l.location + "\n  ")
	}
	if l.function != "" {
		b.WriteString(l.function + "\n    ")
	}
	if l.message != "" {
		b.WriteString(l.message + "\n")
	}
	return b.String()
}

// cutNextLevel drops a nested error that text/template appended after "error calling include: ".
func cutNextLevel(msg string) string {
	if i := strings.Index(msg, " template:"); i >= 0 {
		return msg[:i]
	}
	return msg
}

// parseLevel reads one text/template error message.
func parseLevel(s string) (traceLevel, bool) {
	const prefix = "template: "
	if !strings.HasPrefix(s, prefix) {
		return traceLevel{}, false
	}
	rest := s[len(prefix):]
	// ExecuteTemplate of an unknown name.
	if strings.HasPrefix(rest, "no template ") {
		return traceLevel{message: s}, true
	}
	// LOCATION: executing "NAME" at <NODE>: MESSAGE
	if i := strings.Index(rest, `: executing "`); i >= 0 {
		location := rest[:i]
		after := rest[i+len(`: executing "`):]
		if q := strings.IndexByte(after, '"'); q >= 0 {
			name := after[:q]
			after = after[q+1:]
			if strings.HasPrefix(after, " at <") {
				after = after[len(" at <"):]
				if e := strings.Index(after, ">: "); e >= 0 {
					return traceLevel{
						location: location,
						function: `executing "` + name + `" at <` + after[:e] + `>:`,
						message:  cutNextLevel(after[e+len(">: "):]),
					}, true
				}
			}
		}
		return traceLevel{}, false
	}
	// LOCATION: MESSAGE
	if i := strings.LastIndex(rest, ": "); i >= 0 {
		return traceLevel{location: rest[:i], message: cutNextLevel(rest[i+2:])}, true
	}
	return traceLevel{}, false
}

func helmExecError(filename string, err error) error {
	if _, ok := err.(template.ExecError); !ok {
		return err
	}
	parts := strings.SplitN(err.Error(), ": ", 3)
	if len(parts) != 3 {
		return fmt.Errorf("execution error in (%s): %s", filename, err)
	}
	if m := warnPattern.FindStringSubmatch(parts[2]); len(m) >= 2 {
		return fmt.Errorf("execution error at (%s): %s", parts[1], m[1])
	}
	var levels []traceLevel
	for cur := err; cur != nil; cur = errors.Unwrap(cur) {
		l, ok := parseLevel(cur.Error())
		if !ok {
			return err
		}
		if n := len(levels); n > 0 && levels[n-1] == l {
			continue
		}
		levels = append(levels, l)
	}
	var b strings.Builder
	for _, l := range levels {
		b.WriteString(l.String())
	}
	return errors.New(strings.TrimSpace(b.String()))
}
