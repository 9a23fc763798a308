// Command gotemplate-ref renders Go templates the way Helm 3's engine does, with real Go
// text/template, Sprig and Helm's functions. It is the reference that produces the expected
// outputs of test/gotemplate/corpus.json. See README.md.
//
//	gotemplate-ref [render]     stdin: [{"id","template","data"}...]
//	                            stdout: [{"id","output"} | {"id","error","goError","phase"}...]
//	gotemplate-ref set          stdin: {"templates":{name:text},"values":{...}}
//	                            stdout: {"rendered":{name:output}} | {"error","goError","phase"}
//	gotemplate-ref bench [-n N] [-warmup W]
//	                            stdin as for set; stdout: timings (JSON)
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"time"
	"unicode/utf8"
)

type renderCase struct {
	ID       string          `json:"id"`
	Template string          `json:"template"`
	Data     json.RawMessage `json:"data"`
}

type renderResult struct {
	ID      string  `json:"id"`
	Output  *string `json:"output,omitempty"`
	Error   string  `json:"error,omitempty"`
	GoError string  `json:"goError,omitempty"`
	Phase   string  `json:"phase,omitempty"`
	// Set when the output is not valid UTF-8 (a JS string cannot hold it): OutputHex has the bytes.
	InvalidUTF8 bool   `json:"invalidUtf8,omitempty"`
	OutputHex   string `json:"outputHex,omitempty"`
}

type setInput struct {
	Templates map[string]string      `json:"templates"`
	Values    map[string]interface{} `json:"values"`
}

func die(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "gotemplate-ref: "+format+"\n", args...)
	os.Exit(2)
}

// decodeData reads JSON the way Helm holds values: numbers become float64.
func decodeData(raw json.RawMessage) interface{} {
	if len(raw) == 0 {
		return nil
	}
	var v interface{}
	if err := json.Unmarshal(raw, &v); err != nil {
		die("bad data: %v", err)
	}
	return v
}

func writeJSON(w io.Writer, v interface{}) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		die("cannot encode output: %v", err)
	}
}

func cmdRender() {
	var cases []renderCase
	if err := json.NewDecoder(bufio.NewReader(os.Stdin)).Decode(&cases); err != nil {
		die("cannot read cases from stdin: %v", err)
	}
	funcs := baseFuncs()
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	out.WriteString("[\n")
	for i, c := range cases {
		res := renderResult{ID: c.ID}
		text, rerr := renderOne(funcs, c.Template, decodeData(c.Data))
		if rerr != nil {
			res.Error, res.GoError, res.Phase = rerr.helmed, rerr.goErr, rerr.phase
		} else if !utf8.ValidString(text) {
			res.InvalidUTF8 = true
			res.OutputHex = fmt.Sprintf("%x", text)
		} else {
			res.Output = &text
		}
		b, err := json.Marshal(res)
		if err != nil {
			die("cannot encode result %s: %v", c.ID, err)
		}
		out.Write(b)
		if i < len(cases)-1 {
			out.WriteString(",")
		}
		out.WriteString("\n")
	}
	out.WriteString("]\n")
}

func readSet() setInput {
	var in setInput
	if err := json.NewDecoder(bufio.NewReader(os.Stdin)).Decode(&in); err != nil {
		die("cannot read the template set from stdin: %v", err)
	}
	if len(in.Templates) == 0 {
		die("no templates in input")
	}
	if in.Values == nil {
		in.Values = map[string]interface{}{}
	}
	return in
}

func cmdSet() {
	in := readSet()
	p, rerr := parseFiles(baseFuncs(), in.Templates)
	var rendered map[string]string
	if rerr == nil {
		rendered, rerr = p.execute(in.Values)
	}
	if rerr != nil {
		writeJSON(os.Stdout, map[string]string{"error": rerr.helmed, "goError": rerr.goErr, "phase": rerr.phase})
		return
	}
	writeJSON(os.Stdout, map[string]interface{}{"rendered": rendered})
}

type timing struct {
	Iterations    int     `json:"iterations"`
	TotalMs       float64 `json:"totalMs"`
	PerRenderMs   float64 `json:"perRenderMs"`
	RendersPerSec float64 `json:"rendersPerSec"`
}

func measure(n int, f func()) timing {
	runtime.GC()
	start := time.Now()
	for i := 0; i < n; i++ {
		f()
	}
	d := time.Since(start)
	ms := float64(d.Nanoseconds()) / 1e6
	return timing{Iterations: n, TotalMs: ms, PerRenderMs: ms / float64(n), RendersPerSec: float64(n) / d.Seconds()}
}

func cmdBench(args []string) {
	fs := flag.NewFlagSet("bench", flag.ExitOnError)
	n := fs.Int("n", 200, "timed renders")
	warmup := fs.Int("warmup", 20, "untimed renders first")
	_ = fs.Parse(args)
	in := readSet()
	funcs := baseFuncs()

	p, rerr := parseFiles(funcs, in.Templates)
	if rerr != nil {
		die("%s", rerr.helmed)
	}
	first, rerr := p.execute(in.Values)
	if rerr != nil {
		die("%s", rerr.helmed)
	}
	bytes, lines := 0, 0
	names := make([]string, 0, len(first))
	for name, s := range first {
		names = append(names, name)
		bytes += len(s)
		for _, ch := range s {
			if ch == '\n' {
				lines++
			}
		}
	}
	sort.Strings(names)

	// What Helm does on every install: parse the whole set, then execute it.
	full := func() {
		q, e := parseFiles(funcs, in.Templates)
		if e != nil {
			die("%s", e.helmed)
		}
		if _, e = q.execute(in.Values); e != nil {
			die("%s", e.helmed)
		}
	}
	// Parse once, execute many times.
	execOnly := func() {
		if _, e := p.execute(in.Values); e != nil {
			die("%s", e.helmed)
		}
	}
	for i := 0; i < *warmup; i++ {
		full()
	}
	writeJSON(os.Stdout, map[string]interface{}{
		"engine":          "go " + runtime.Version() + " text/template + sprig 3.2.3 (Helm 3 engine)",
		"files":           len(in.Templates),
		"rendered":        names,
		"outputBytes":     bytes,
		"outputLines":     lines,
		"parseAndExecute": measure(*n, full),
		"executeOnly":     measure(*n, execOnly),
	})
}

func main() {
	// Dates render in UTC whatever the machine's zone (the corpus is generated with TZ=UTC).
	time.Local = time.UTC
	args := os.Args[1:]
	mode := "render"
	if len(args) > 0 {
		mode, args = args[0], args[1:]
	}
	switch mode {
	case "render":
		cmdRender()
	case "set":
		cmdSet()
	case "bench":
		cmdBench(args)
	case "-h", "--help", "help":
		fmt.Println("usage: gotemplate-ref [render|set|bench [-n N] [-warmup W]] < input.json  (see README.md)")
	default:
		die("unknown mode %q (render, set, bench)", mode)
	}
}
