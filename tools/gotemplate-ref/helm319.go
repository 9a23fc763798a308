package main

// What Helm 3.19 links that Debian bookworm does not have: Helm 3.16+ builds against Sprig 3.3.0,
// which requires huandu/xstrings 1.5.0 and dario.cat/mergo 1.0.1 (Debian: xstrings 1.3.3, mergo
// 0.3.12). Two template functions change between those versions; this file gives them their
// Helm 3.19 behaviour, written from the upstream libraries' documented behaviour and tests (see
// README.md, "Library versions"):
//
//   - camelcase: Sprig 3.3.0 maps it to xstrings 1.5.0's ToPascalCase (its functions.go: "camelcase
//     used to call xstrings.ToCamelCase, but that function had a breaking change in version 1.5");
//     ToPascalCase keeps the case of runes after a word's first ("CamelCase" stays), where 1.3.3's
//     ToCamelCase lower-cased them.
//   - merge/mergeOverwrite (mergo.Merge/MergeWithOverride): with overwrite, mergo 1.0.1 puts a map
//     from src in place of a non-empty dst value that is not a map; 0.3.12 kept the dst value.
//     This is applied before Sprig's own merge (Debian's mergo) does the rest.

import (
	"reflect"
	"text/template"
	"unicode"

	"github.com/imdario/mergo"
)

func helm319Funcs(f template.FuncMap) {
	f["camelcase"] = pascalCase150
	f["mergeOverwrite"] = func(dst map[string]interface{}, srcs ...map[string]interface{}) interface{} {
		for _, src := range srcs {
			mapOverNonMap(dst, src)
			if err := mergo.MergeWithOverwrite(&dst, src); err != nil {
				return "" // Sprig swallows the error
			}
		}
		return dst
	}
	f["mustMergeOverwrite"] = func(dst map[string]interface{}, srcs ...map[string]interface{}) (interface{}, error) {
		for _, src := range srcs {
			mapOverNonMap(dst, src)
			if err := mergo.MergeWithOverwrite(&dst, src); err != nil {
				return nil, err
			}
		}
		return dst, nil
	}
}

func isConnectorRune(r rune) bool { return r == '-' || r == '_' || unicode.IsSpace(r) }

// pascalCase150 behaves as xstrings 1.5.0's ToPascalCase (toCamelCase with isBig): leading connectors
// are kept; a single connector between words is dropped and the rune after it upper-cased, a doubled
// connector keeps one; the first rune is upper-cased; in a word that starts with an upper-case rune
// the upper-case runs that follow are lower-cased until a lower-case rune appears ("GOLANG_IS" ->
// "GolangIs", "CamelCase" stays). A string of one connector comes out twice ("_" -> "__"), as in
// xstrings.
func pascalCase150(s string) string {
	if s == "" {
		return ""
	}
	out := make([]rune, 0, len(s))
	runes := []rune(s)
	i := 0
	var r0 rune
	firstUpper := false
	for i < len(runes) {
		r0 = runes[i]
		i++
		if !isConnectorRune(r0) {
			firstUpper = unicode.IsUpper(r0)
			r0 = unicode.ToUpper(r0)
			break
		}
		out = append(out, r0)
	}
	if i >= len(runes) {
		return string(append(out, r0))
	}
	for i < len(runes) {
		r1 := r0
		r0 = runes[i]
		i++
		switch {
		case isConnectorRune(r0) && isConnectorRune(r1):
			out = append(out, r1)
		case isConnectorRune(r1):
			firstUpper = unicode.IsUpper(r0)
			r0 = unicode.ToUpper(r0)
		default:
			if firstUpper {
				if unicode.IsUpper(r0) {
					r0 = unicode.ToLower(r0)
				} else {
					firstUpper = false
				}
			}
			out = append(out, r1)
		}
	}
	return string(append(out, r0))
}

// mapOverNonMap applies mergo 1.0.1's rule that 0.3.12 lacks, for a merge with overwrite: a map
// value of src replaces a dst value that is not empty and not a map; map values meet recursively.
func mapOverNonMap(dst, src map[string]interface{}) {
	for k, sv := range src {
		sm, ok := sv.(map[string]interface{})
		if !ok || sm == nil {
			continue
		}
		dv, has := dst[k]
		if !has {
			continue
		}
		if dm, ok := dv.(map[string]interface{}); ok {
			if dm != nil {
				mapOverNonMap(dm, sm)
			}
			continue
		}
		if !isEmptyMergoValue(dv) {
			dst[k] = sm
		}
	}
}

// isEmptyMergoValue is mergo's isEmptyValue of an interface{} value (dereferenced).
func isEmptyMergoValue(v interface{}) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return rv.Len() == 0
	case reflect.Bool:
		return !rv.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return rv.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return rv.Float() == 0
	case reflect.Ptr, reflect.Interface:
		if rv.IsNil() {
			return true
		}
		return isEmptyMergoValue(rv.Elem().Interface())
	case reflect.Func:
		return rv.IsNil()
	}
	return false
}
