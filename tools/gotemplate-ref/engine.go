package main

// A Helm-3-like rendering engine over Go's text/template (compare helm/helm pkg/engine/engine.go):
// one template set rooted at "gotpl", option missingkey=zero, every "<no value>" removed from
// the output, Helm's error presentation.

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"text/template"
)

const rootName = "gotpl"

// newSet creates an empty template set with Helm's options and functions.
func newSet(funcs template.FuncMap) (*template.Template, map[string]int) {
	t := template.New(rootName)
	t.Option("missingkey=zero")
	t.Funcs(funcs)
	included := map[string]int{}
	bindSetFuncs(t, included)
	return t, included
}

// renderError carries both the raw Go message and Helm's presentation of it.
type renderError struct {
	phase  string // "parse", "exec" or "panic"
	goErr  string
	helmed string
}

func (e *renderError) Error() string { return e.helmed }

// renderOne parses text as template "main" and executes it with data as dot.
func renderOne(funcs template.FuncMap, text string, data interface{}) (out string, rerr *renderError) {
	defer func() {
		if r := recover(); r != nil {
			msg := fmt.Sprintf("rendering template failed: %v", r)
			rerr = &renderError{phase: "panic", goErr: fmt.Sprint(r), helmed: msg}
		}
	}()
	t, _ := newSet(funcs)
	if _, err := t.New("main").Parse(text); err != nil {
		return "", &renderError{phase: "parse", goErr: err.Error(), helmed: helmParseError("main", err).Error()}
	}
	var buf strings.Builder
	if err := t.ExecuteTemplate(&buf, "main", data); err != nil {
		return "", &renderError{phase: "exec", goErr: err.Error(), helmed: helmExecError("main", err).Error()}
	}
	return strings.ReplaceAll(buf.String(), "<no value>", ""), nil
}

// sortedNames orders file names as Helm parses them: fewer path segments first, then by name,
// and the whole list reversed (deeper files first).
func sortedNames(files map[string]string) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := names[i], names[j]
		ca, cb := strings.Count(a, "/"), strings.Count(b, "/")
		if ca != cb {
			return ca > cb
		}
		return a > b
	})
	return names
}

// basePath is Helm's .Template.BasePath: the chart's templates directory.
func basePath(name string) string {
	if i := strings.LastIndex(name, "/templates/"); i >= 0 {
		return name[:i+len("/templates")]
	}
	return path.Dir(name)
}

// parsedSet is a chart-like set of files parsed into one template set.
type parsedSet struct {
	t     *template.Template
	names []string
}

func parseFiles(funcs template.FuncMap, files map[string]string) (*parsedSet, *renderError) {
	t, _ := newSet(funcs)
	names := sortedNames(files)
	for _, n := range names {
		if _, err := t.New(n).Parse(files[n]); err != nil {
			return nil, &renderError{phase: "parse", goErr: err.Error(), helmed: helmParseError(n, err).Error()}
		}
	}
	return &parsedSet{t: t, names: names}, nil
}

// execute renders every file whose base name does not start with "_", like Helm. values is
// the top-level object (.Values, .Release, ...); .Template is set per file.
func (p *parsedSet) execute(values map[string]interface{}) (out map[string]string, rerr *renderError) {
	defer func() {
		if r := recover(); r != nil {
			msg := fmt.Sprintf("rendering template failed: %v", r)
			rerr = &renderError{phase: "panic", goErr: fmt.Sprint(r), helmed: msg}
		}
	}()
	out = make(map[string]string, len(p.names))
	for _, n := range p.names {
		if strings.HasPrefix(path.Base(n), "_") {
			continue
		}
		values["Template"] = map[string]interface{}{"Name": n, "BasePath": basePath(n)}
		var buf strings.Builder
		if err := p.t.ExecuteTemplate(&buf, n, values); err != nil {
			return nil, &renderError{phase: "exec", goErr: err.Error(), helmed: helmExecError(n, err).Error()}
		}
		out[n] = strings.ReplaceAll(buf.String(), "<no value>", "")
	}
	return out, nil
}
