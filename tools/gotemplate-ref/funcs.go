package main

// The function map: Sprig's text functions as Helm 3 exposes them, plus Helm's own functions.
//
// Library versions are Debian's (bookworm): Sprig 3.2.3, semver 3.2.0, mergo 0.3.12,
// sigs.k8s.io/yaml 1.3.0 over gopkg.in/yaml.v2 2.4.0, BurntSushi/toml 1.2.0. Sprig 3.3.0's
// sha512sum, which Helm 3.17+ ships, is added here by hand (its htpasswd is 3.2.3's: two arguments);
// helm319.go gives camelcase and mergeOverwrite the behaviour of the xstrings and mergo versions
// Helm 3.19 links.

import (
	"bytes"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/template"

	"github.com/BurntSushi/toml"
	"github.com/Masterminds/sprig/v3"
	"sigs.k8s.io/yaml"
)

// Helm marks the messages of `required` and `fail` with these delimiters so that its error
// formatter can pull them out of text/template's wrapping (engine.go warnWrap in Helm).
const (
	warnStart = "HELM_ERR_START"
	warnEnd   = "HELM_ERR_END"
)

// Helm's limit on nested `include` of one name.
const includeRecursionMax = 1000

func wrapWarning(msg string) string { return warnStart + msg + warnEnd }

// baseFuncs returns the functions that do not depend on the template set.
func baseFuncs() template.FuncMap {
	f := sprig.TxtFuncMap()
	// Helm removes the two functions that read the process environment.
	delete(f, "env")
	delete(f, "expandenv")

	// Helm 3.19's xstrings 1.5.0 and mergo 1.0.1.
	helm319Funcs(f)

	// Sprig 3.3.0 additions.
	f["sha512sum"] = func(input string) string {
		sum := sha512.Sum512([]byte(input))
		return hex.EncodeToString(sum[:])
	}
	// htpasswd: Debian's Sprig 3.2.3 has Sprig 3.3.0's two-argument one (username, password; bcrypt).

	// Helm's serialisation functions (pkg/engine/funcs.go).
	f["toYaml"] = func(v interface{}) string {
		out, err := yaml.Marshal(v)
		if err != nil {
			return "" // Helm swallows the error
		}
		return strings.TrimSuffix(string(out), "\n")
	}
	f["mustToYaml"] = func(v interface{}) string {
		out, err := yaml.Marshal(v)
		if err != nil {
			panic(err) // text/template turns the panic into "error calling mustToYaml: ..."
		}
		return strings.TrimSuffix(string(out), "\n")
	}
	f["fromYaml"] = func(s string) map[string]interface{} {
		m := map[string]interface{}{}
		if err := yaml.Unmarshal([]byte(s), &m); err != nil {
			m["Error"] = err.Error()
		}
		return m
	}
	f["fromYamlArray"] = func(s string) []interface{} {
		a := []interface{}{}
		if err := yaml.Unmarshal([]byte(s), &a); err != nil {
			a = []interface{}{err.Error()}
		}
		return a
	}
	f["toJson"] = func(v interface{}) string {
		out, err := json.Marshal(v)
		if err != nil {
			return ""
		}
		return string(out)
	}
	f["mustToJson"] = func(v interface{}) string {
		out, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		return string(out)
	}
	f["fromJson"] = func(s string) map[string]interface{} {
		m := map[string]interface{}{}
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			m["Error"] = err.Error()
		}
		return m
	}
	f["fromJsonArray"] = func(s string) []interface{} {
		a := []interface{}{}
		if err := json.Unmarshal([]byte(s), &a); err != nil {
			a = []interface{}{err.Error()}
		}
		return a
	}
	f["toToml"] = func(v interface{}) string {
		var b bytes.Buffer
		if err := toml.NewEncoder(&b).Encode(v); err != nil {
			return err.Error()
		}
		return b.String()
	}
	// `helm template` has no cluster: lookup always finds nothing.
	f["lookup"] = func(apiVersion, kind, namespace, name string) (map[string]interface{}, error) {
		return map[string]interface{}{}, nil
	}
	f["required"] = func(warn string, val interface{}) (interface{}, error) {
		if val == nil {
			// Helm uses errors.Errorf(warnWrap(warn)): the message is a format string.
			return val, fmt.Errorf(wrapWarning(warn))
		}
		if s, ok := val.(string); ok && s == "" {
			return val, fmt.Errorf(wrapWarning(warn))
		}
		return val, nil
	}
	f["fail"] = func(msg string) (string, error) {
		return "", errors.New(wrapWarning(msg))
	}
	// Placeholders, replaced per template set by bindSetFuncs.
	f["include"] = func(string, interface{}) string { return "not implemented" }
	f["tpl"] = func(string, interface{}) interface{} { return "not implemented" }
	return f
}

// bindSetFuncs installs include and tpl, which close over the template set t. included counts
// the active nesting of each included name across the whole render (tpl shares it).
func bindSetFuncs(t *template.Template, included map[string]int) {
	t.Funcs(template.FuncMap{
		"include": includeFunc(t, included),
		"tpl":     tplFunc(t, included),
	})
}

func includeFunc(t *template.Template, included map[string]int) func(string, interface{}) (string, error) {
	return func(name string, data interface{}) (string, error) {
		if n, ok := included[name]; ok {
			if n > includeRecursionMax {
				return "", fmt.Errorf("rendering template has a nested reference name: %s: %w",
					name, errors.New("unable to execute template"))
			}
			included[name]++
		} else {
			included[name] = 1
		}
		var buf strings.Builder
		err := t.ExecuteTemplate(&buf, name, data)
		included[name]--
		return buf.String(), err
	}
}

// wrapped mimics github.com/pkg/errors.Wrapf: "msg: cause", unwrapping to the cause.
type wrapped struct {
	msg   string
	cause error
}

func (w *wrapped) Error() string { return w.msg + ": " + w.cause.Error() }
func (w *wrapped) Unwrap() error { return w.cause }

func tplFunc(parent *template.Template, included map[string]int) func(string, interface{}) (string, error) {
	return func(text string, vals interface{}) (string, error) {
		t, err := parent.Clone()
		if err != nil {
			return "", &wrapped{"cannot clone template", err}
		}
		// Options are not cloned reliably (golang/go#43022): Helm sets missingkey again.
		t.Option("missingkey=zero")
		bindSetFuncs(t, included)
		// The text becomes a template named like the set's root ("gotpl").
		t, err = t.New(parent.Name()).Parse(text)
		if err != nil {
			return "", &wrapped{fmt.Sprintf("cannot parse template %q", text), err}
		}
		var buf strings.Builder
		if err := t.Execute(&buf, vals); err != nil {
			return "", &wrapped{fmt.Sprintf("error during tpl function execution for %q", text), err}
		}
		return strings.ReplaceAll(buf.String(), "<no value>", ""), nil
	}
}
