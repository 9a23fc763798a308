// gojq-bench: runs one jq filter with gojq (the engine shell-operator embeds) over NDJSON objects that
// are decoded first, and prints the nanoseconds spent filtering them (best of 5 rounds).
// Build: see tools/gojq-bench/build.sh. Used by bench/jq.ts.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/itchyny/gojq"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gojq-bench FILTER FILE.ndjson")
		os.Exit(2)
	}
	query, err := gojq.Parse(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	code, err := gojq.Compile(query)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	f, err := os.Open(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var objects []any
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 1<<26)
	for scanner.Scan() {
		var v any
		if err := json.Unmarshal(scanner.Bytes(), &v); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		objects = append(objects, v)
	}
	best := time.Duration(1 << 62)
	for round := 0; round < 5; round++ {
		start := time.Now()
		for _, o := range objects {
			iter := code.Run(o)
			for {
				v, ok := iter.Next()
				if !ok {
					break
				}
				if e, isErr := v.(error); isErr {
					fmt.Fprintln(os.Stderr, e)
					os.Exit(5)
				}
			}
		}
		if d := time.Since(start); d < best {
			best = d
		}
	}
	fmt.Println(best.Nanoseconds())
}
