// Command incluster is benchmarks/incluster.sh's measuring tool, with no dependency beyond Go's standard library:
//
//	incluster load      open-loop creates at a fixed rate through the API server; prints one JSON result
//	incluster webhooks  the difference of two /metrics scrapes: the API server's own webhook latency per webhook
//	incluster usage     the difference of two kubelet summaries: CPU seconds and memory per namespace
//	incluster report    the Markdown table of the runs
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: incluster load|webhooks|usage|report ...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "load":
		err = load(os.Args[2:])
	case "webhooks":
		err = webhooks(os.Args[2:])
	case "usage":
		err = usage(os.Args[2:])
	case "report":
		err = report(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "incluster:", err)
		os.Exit(1)
	}
}
