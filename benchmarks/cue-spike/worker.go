//go:build !wasip1

package main

import (
	"bufio"
	"os"
)

// One request per line on stdin, one answer per line on stdout.
func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 8<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		out.Write(answer(in.Bytes()))
		out.WriteByte('\n')
		out.Flush()
	}
}
