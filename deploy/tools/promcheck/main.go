// Command promcheck validates Prometheus artefacts offline: alerting rule files (the same
// parsing and checks as `promtool check rules`) and PromQL expressions such as the queries
// of a Grafana dashboard.
//
//	promcheck rules FILE...   validate rule files
//	promcheck exprs           read a JSON array of expressions on stdin; print the metric
//	                          names they select, one a line; fail on the first bad one
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: promcheck rules FILE... | promcheck exprs < exprs.json")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "rules":
		os.Exit(checkRules(os.Args[2:]))
	case "exprs":
		os.Exit(checkExprs())
	default:
		fmt.Fprintf(os.Stderr, "unknown command %q\n", os.Args[1])
		os.Exit(2)
	}
}

func checkRules(files []string) int {
	failed := 0
	for _, file := range files {
		groups, errs := rulefmt.ParseFile(file, false, model.UTF8Validation)
		if len(errs) > 0 {
			for _, err := range errs {
				fmt.Fprintf(os.Stderr, "%s: %v\n", file, err)
			}
			failed++
			continue
		}
		rules := 0
		for _, g := range groups.Groups {
			rules += len(g.Rules)
		}
		fmt.Printf("%s: %d groups, %d rules\n", file, len(groups.Groups), rules)
	}
	if failed > 0 {
		return 1
	}
	return 0
}

func checkExprs() int {
	var exprs []string
	if err := json.NewDecoder(os.Stdin).Decode(&exprs); err != nil {
		fmt.Fprintf(os.Stderr, "reading expressions: %v\n", err)
		return 2
	}
	names := map[string]bool{}
	for _, text := range exprs {
		expr, err := parser.ParseExpr(text)
		if err != nil {
			fmt.Fprintf(os.Stderr, "invalid expression %q: %v\n", text, err)
			return 1
		}
		parser.Inspect(expr, func(node parser.Node, _ []parser.Node) error {
			if vs, ok := node.(*parser.VectorSelector); ok && vs.Name != "" {
				names[vs.Name] = true
			}
			return nil
		})
	}
	sorted := make([]string, 0, len(names))
	for name := range names {
		sorted = append(sorted, name)
	}
	sort.Strings(sorted)
	for _, name := range sorted {
		fmt.Println(name)
	}
	return 0
}
